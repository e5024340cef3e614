# The include check (a test in the suite): fails if a folder of the library includes a header
# from a folder above it, so that data keeps flowing one way:
#
#   reader (pnnx/, onnx/) -> model description (graph/) -> layers (layer/ and its families)
#   -> kernels (kernel/, math/) -> tensor/ -> base/
#
# with the graph passes (passes/) above the layers and the runtime (runtime/) on top; io/ (the test
# harness) is included by no folder of the library. Internal headers are named from source/
# ("layer/layer.hpp"); public ones from include/ ("lumen/session.hpp"), each at the level of the
# folder whose code it declares. Also: the runtime names no concrete layer (only layer.hpp,
# layer_config.hpp and layer_registry.hpp), no reader (formats register themselves), and the public
# headers include only public headers.
#
#   cmake -DROOT=<lumen source directory> -P check_includes.cmake
cmake_policy(SET CMP0057 NEW)
set(allowed_base "base")
set(allowed_tensor "base;tensor")
set(allowed_math "base;tensor;math")
set(allowed_kernel "base;tensor;math;kernel")
set(allowed_graph "base;tensor;graph")
set(allowed_io "base;tensor;io")
set(allowed_layer "base;tensor;math;kernel;graph;layer")
set(allowed_pnnx "base;tensor;graph;pnnx")
set(allowed_onnx "base;tensor;graph;onnx")
set(allowed_passes "base;tensor;math;graph;layer;passes")
set(allowed_runtime "base;tensor;math;graph;layer;passes;runtime")
set(runtime_layer_headers "layer/layer.hpp;layer/layer_config.hpp;layer/layer_registry.hpp")
# The public headers (install() copies include/lumen/*.hpp), and the level of each.
set(public_error "base")
set(public_tensor "tensor")
set(public_model "runtime")
set(public_session "runtime")
set(public_lumen "runtime")

set(problems "")
file(GLOB_RECURSE files "${ROOT}/include/lumen/*.hpp" "${ROOT}/source/*.cpp" "${ROOT}/source/*.hpp")
foreach(file IN LISTS files)
  file(RELATIVE_PATH relative "${ROOT}" "${file}")
  set(public FALSE)
  if(relative MATCHES "^include/lumen/([a-z_]+)\\.hpp$")
    set(public TRUE)
    if(NOT DEFINED public_${CMAKE_MATCH_1})
      string(APPEND problems "\n  ${relative}: a public header with no level in this check")
      continue()
    endif()
    set(folder "${public_${CMAKE_MATCH_1}}")
  elseif(relative MATCHES "^source/([a-z_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  else()
    string(APPEND problems "\n  ${relative}: a header outside include/lumen/ and source/")
    continue()
  endif()
  if(NOT DEFINED allowed_${folder})
    string(APPEND problems "\n  ${relative}: folder '${folder}' has no place in the layering")
    continue()
  endif()
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE ".*\"([^\"]+)\".*" "\\1" header "${line}")
    if(header MATCHES "^lumen/([a-z_]+)\\.hpp$")
      set(included_folder "${public_${CMAKE_MATCH_1}}")
      set(included_public TRUE)
    elseif(header MATCHES "^([a-z_]+)/")
      set(included_folder "${CMAKE_MATCH_1}")
      set(included_public FALSE)
    else()  # a generated header of the folder itself (onnx.pb.h)
      continue()
    endif()
    if(public AND NOT included_public)
      string(APPEND problems "\n  ${relative}: a public header includes internal ${header}")
    elseif(NOT included_folder IN_LIST allowed_${folder})
      string(APPEND problems "\n  ${relative}: ${folder}/ includes ${header} (a folder above it)")
    endif()
    if(folder STREQUAL "runtime" AND included_folder STREQUAL "layer"
       AND NOT header IN_LIST runtime_layer_headers)
      string(APPEND problems "\n  ${relative}: the runtime names a concrete layer (${header})")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "include check failed:${problems}")
endif()
list(LENGTH files count)
message(STATUS "include check: ${count} files, every include points down")
