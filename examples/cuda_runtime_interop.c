/* cuda_runtime_interop: gpuact on memory and streams of the CUDA runtime.
   The CUDA backend works on the device's primary context, the one the
   runtime (and PyTorch) uses, so a cudaMalloc pointer is a gpuact buffer
   handle and a cudaStream_t is a gpuact stream, as they are. Build needs the
   CUDA toolkit: make examples BACKEND=cuda (links -lcudart). */
#define GPUACT_IMPLEMENTATION
#include "../gpuact.h"
#include "example_util.h"
#include <cuda_runtime.h>

int main(void) {
    const size_t n = 1 << 20;
    gpuact_context_desc desc;
    gpuact_context *ctx;
    gpuact_buffer x, y;
    float *dev_x, *dev_y, *h = (float *)example_alloc(n * 4);
    cudaStream_t stream;
    size_t i, bad = 0;
    if (cudaMalloc((void **)&dev_x, n * 4) != cudaSuccess || cudaMalloc((void **)&dev_y, n * 4) != cudaSuccess ||
        cudaStreamCreate(&stream) != cudaSuccess) {
        fprintf(stderr, "CUDA runtime: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    memset(&desc, 0, sizeof desc);
    desc.backend = GPUACT_BACKEND_CUDA;
    CHECK(gpuact_context_create(&desc, &ctx));
    example_fill(h, n, -1.0f, 1.0f, 11);
    cudaMemcpyAsync(dev_x, h, n * 4, cudaMemcpyHostToDevice, stream);

    x.handle = dev_x; x.offset = 0;
    y.handle = dev_y; y.offset = 0;
    CHECK(gpuact_relu_forward(ctx, GPUACT_F32, n, x, y, (gpuact_stream)stream)); /* ordered after the copy */
    cudaMemcpyAsync(h, dev_y, n * 4, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    for (i = 0; i < n; i++) bad += h[i] < 0;
    printf("relu on cudaMalloc memory and a cudaStream_t: %s\n", bad ? "FAIL" : "PASS");
    gpuact_context_destroy(ctx);
    cudaFree(dev_x);
    cudaFree(dev_y);
    cudaStreamDestroy(stream);
    return bad != 0;
}
