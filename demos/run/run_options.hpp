// lumen_run's command line: what each option asks for, parsed with CLI11.
#ifndef LUMEN_DEMOS_RUN_RUN_OPTIONS_HPP_
#define LUMEN_DEMOS_RUN_RUN_OPTIONS_HPP_

#include <string>
#include <vector>

namespace lumen {
namespace run {

// Everything the command line asks for.
struct Options {
  std::string case_directory;
  bool list_operators = false;
  std::vector<std::string> model_files;  // param [bin]
  std::vector<std::string> input_specs;  // FILE.npy, FILE:SHAPE or FILE
  std::vector<std::string> shape_specs;  // NAME:SHAPE
  std::string output_directory;          // empty: "." where outputs are written at all
  bool save_outputs = false;             // write NAME.npy files
  std::string extract;
  std::string dump_directory;
  int threads = 0;
  int repeat = 0;
  int warmup = 3;
  int sessions = 0;
  double max_memory_megabytes = 0;
  bool profile = false;
  bool no_fuse = false;
  bool json = false;
  bool summary = false;
};

// Parses the command line into `options`. Returns -1 to go on, or the exit status to end with
// (0 after --help or --version, 2 after a usage error, which CLI11 has printed).
int ParseOptions(int argc, char** argv, Options* options);

}  // namespace run
}  // namespace lumen

#endif  // LUMEN_DEMOS_RUN_RUN_OPTIONS_HPP_
