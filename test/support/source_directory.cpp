// The one file that knows where the source tree is (CMake defines LUMEN_SOURCE_DIR for it alone).
#include "support/source_directory.hpp"

namespace lumen {
namespace test_support {

std::string SourceDirectory() { return LUMEN_SOURCE_DIR; }

}  // namespace test_support
}  // namespace lumen
