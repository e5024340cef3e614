# `cmake --install`'s step for the Python package (CMakeLists.txt includes it in the install
# script after setting LUMEN_PYTHON_EXECUTABLE and LUMEN_PYTHON_PACKAGE): copies build/python/lumen
# into the site directory that the prefix's python3 searches, and says where it went.
#
# It runs at install time, not at configure time, because only then is the prefix known
# (`cmake --install build --prefix X`, or /usr inside cpack). The site directory is asked of the
# interpreter the module was built for. Debian's python3 has schemes of its own: for /usr (a .deb)
# it is /usr/lib/python3/dist-packages; for /usr/local, /usr/local/lib/python3.X/dist-packages,
# written relative to /usr (sysconfig's default scheme posix_local: asking it for the base
# /usr/local gives /usr/local/local/..., off sys.path). Any other prefix gets the standard
# PREFIX/lib/python3.X/site-packages, which is also a venv's when the prefix is one.
execute_process(
  COMMAND "${LUMEN_PYTHON_EXECUTABLE}" -I -c [=[
import os, sys, sysconfig
prefix = os.path.normpath(sys.argv[1])
system = os.path.normpath(sys.base_prefix)
schemes = sysconfig.get_scheme_names()
if prefix == system and "deb_system" in schemes:
    scheme, base = "deb_system", prefix
elif prefix == os.path.join(system, "local") and "posix_local" in schemes:
    scheme, base = "posix_local", system
else:
    scheme, base = "posix_prefix", prefix
site = sysconfig.get_path("platlib", scheme, vars={"base": base, "platbase": base})
print(site)
print("yes" if site in [os.path.normpath(path) for path in sys.path] else "no")
]=] "${CMAKE_INSTALL_PREFIX}"
  OUTPUT_VARIABLE lumen_python_answer
  RESULT_VARIABLE lumen_python_status)
if(NOT lumen_python_status EQUAL 0)
  message(FATAL_ERROR "${LUMEN_PYTHON_EXECUTABLE} could not name the site directory under "
                      "${CMAKE_INSTALL_PREFIX}")
endif()
string(STRIP "${lumen_python_answer}" lumen_python_answer)
string(REPLACE "\n" ";" lumen_python_answer "${lumen_python_answer}")
list(GET lumen_python_answer 0 lumen_python_site)
list(GET lumen_python_answer 1 lumen_python_on_path)

# file(INSTALL) is what install(DIRECTORY) runs: it honours DESTDIR and records the files for
# install_manifest.txt. The patterns are setup.py's (the wheel holds the same files).
file(INSTALL DESTINATION "${lumen_python_site}" TYPE DIRECTORY FILES "${LUMEN_PYTHON_PACKAGE}"
     FILES_MATCHING PATTERN "*.py" PATTERN "*.so" PATTERN "*.pyi" PATTERN "py.typed")
if(lumen_python_on_path STREQUAL "yes")
  message(STATUS "Python package lumen: ${lumen_python_site}/lumen "
                 "(on ${LUMEN_PYTHON_EXECUTABLE}'s sys.path)")
else()
  message(STATUS "Python package lumen: ${lumen_python_site}/lumen; not on "
                 "${LUMEN_PYTHON_EXECUTABLE}'s sys.path: export PYTHONPATH=${lumen_python_site}")
endif()
