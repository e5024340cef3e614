# The include check (a test in the suite): fails if a folder of the library includes a header
# from a folder above it, so that data keeps flowing one way:
#
#   reader (pnnx/, onnx/) -> model description (graph/) -> layers (layer/) -> kernels (kernel/,
#   math/) -> tensor/ -> base/          and the runtime (runtime/) on top, above the layers.
#
# Also: the runtime names no concrete layer (only layer.hpp, layer_config.hpp and
# layer_registry.hpp), no reader (formats register themselves), and the public headers include
# only public headers.
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
set(allowed_runtime "base;tensor;math;graph;layer;runtime")
set(allowed_python "base;tensor;runtime;io;python")
set(runtime_layer_headers "layer/layer.hpp;layer/layer_config.hpp;layer/layer_registry.hpp")
# What a user of the installed library includes (install() copies exactly these).
set(public_headers "lumen.hpp;base/error.hpp;tensor/tensor.hpp;runtime/model.hpp;runtime/session.hpp")

set(problems "")
file(GLOB_RECURSE files "${ROOT}/include/lumen/*.hpp" "${ROOT}/source/*.cpp" "${ROOT}/source/*.hpp")
foreach(file IN LISTS files)
  file(RELATIVE_PATH relative "${ROOT}" "${file}")
  if(relative MATCHES "^include/lumen/([a-z_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  elseif(relative MATCHES "^source/([a-z_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  else()
    set(folder "umbrella")
  endif()
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"lumen/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE ".*\"lumen/([^\"]+)\".*" "\\1" header "${line}")
    string(REGEX REPLACE "/.*" "" included_folder "${header}")
    if(NOT folder STREQUAL "umbrella")
      if(NOT DEFINED allowed_${folder})
        string(APPEND problems "\n  ${relative}: folder '${folder}' has no place in the layering")
      elseif(NOT included_folder IN_LIST allowed_${folder})
        string(APPEND problems "\n  ${relative}: ${folder}/ includes lumen/${header} (a folder above it)")
      endif()
    endif()
    if(folder STREQUAL "runtime" AND included_folder STREQUAL "layer"
       AND NOT header IN_LIST runtime_layer_headers)
      string(APPEND problems "\n  ${relative}: the runtime names a concrete layer (lumen/${header})")
    endif()
    string(REGEX REPLACE "^include/lumen/" "" public_name "${relative}")
    if(public_name IN_LIST public_headers AND NOT header IN_LIST public_headers)
      string(APPEND problems "\n  ${relative}: a public header includes internal lumen/${header}")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "include check failed:${problems}")
endif()
list(LENGTH files count)
message(STATUS "include check: ${count} files, every include points down")
