# Link needs of gpuact, shared by the source tree's CMakeLists.txt and the
# installed gpuactConfig.cmake.
#
# Default: the vendor libraries are loaded at run time with dlopen, so a
# program needs only ${CMAKE_DL_LIBS} and Threads::Threads.
#
# GPUACT_NO_RUNTIME_LINKING=ON: the target also defines the macro
# GPUACT_NO_RUNTIME_LINKING and links what gpuact calls: OpenCL::OpenCL
# (required: the header then needs CL/cl.h), and, where the CUDA toolkit is
# found, CUDA::cuda_driver and CUDA::nvrtc behind --no-as-needed (gpuact
# takes their symbols from the program, so the linker sees no reference).
# HIP is not linked here: add hip::host yourself, or GPUACT_NO_HIP.
include_guard(GLOBAL)

function(gpuact_add_link_needs target)
  find_package(Threads REQUIRED)
  set(_libs ${CMAKE_DL_LIBS} Threads::Threads)
  set(_defs "")
  set(_opts "")
  if(GPUACT_NO_RUNTIME_LINKING)
    find_package(OpenCL QUIET)
    if(NOT OpenCL_FOUND)
      message(FATAL_ERROR "gpuact: GPUACT_NO_RUNTIME_LINKING needs OpenCL (headers and libOpenCL): "
                          "install them, or turn the option off")
    endif()
    list(APPEND _libs OpenCL::OpenCL)
    list(APPEND _defs GPUACT_NO_RUNTIME_LINKING)
    find_package(CUDAToolkit QUIET)
    if(TARGET CUDA::cuda_driver AND TARGET CUDA::nvrtc)
      list(APPEND _opts "LINKER:--no-as-needed")
      list(APPEND _libs CUDA::cuda_driver CUDA::nvrtc)
    endif()
  endif()
  get_target_property(_imported ${target} IMPORTED)
  if(_imported)
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${_libs})
    if(_defs)
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS ${_defs})
    endif()
    if(_opts)
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_OPTIONS ${_opts})
    endif()
  else()
    target_link_libraries(${target} INTERFACE ${_libs})
    target_compile_definitions(${target} INTERFACE ${_defs})
    target_link_options(${target} INTERFACE ${_opts})
  endif()
endfunction()
