// Where the tests find their data (tmp/models, test/data): the source tree they were built from.
#ifndef LUMEN_TEST_SUPPORT_SOURCE_DIRECTORY_HPP_
#define LUMEN_TEST_SUPPORT_SOURCE_DIRECTORY_HPP_

#include <string>

namespace lumen {
namespace test_support {

// The absolute path of the source tree, without a trailing slash. It is compiled into one file
// (source_directory.cpp) instead of every test, so that every other test file compiles to the same
// command in any tree: ccache then reuses the engine's objects for a course tree.
std::string SourceDirectory();

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_SOURCE_DIRECTORY_HPP_
