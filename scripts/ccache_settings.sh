# Sourced by the scripts that compile Lumen (release_build.sh, test.sh, course.sh) with the tree
# being built as its argument: `source scripts/ccache_settings.sh TREE`. It tells ccache that two
# trees compile the same thing: paths are taken relative to TREE (CCACHE_BASEDIR), so build/, a
# course tree and the package test's add_subdirectory build hash alike; the sloppiness lets ccache
# cache files that use the precompiled headers.
export CCACHE_BASEDIR=$1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
