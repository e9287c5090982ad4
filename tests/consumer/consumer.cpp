// The same consumer as C++.
#include "consumer.c"
