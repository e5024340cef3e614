// The command-line arguments both image demos take the way lumen_run does: the model as a
// positional path (`lumen_resnet model.pnnx.param [model.pnnx.bin]`, or a .onnx file), with
// --param and --bin kept as aliases, and --version.
#ifndef LUMEN_DEMOS_COMMON_DEMO_ARGUMENTS_HPP_
#define LUMEN_DEMOS_COMMON_DEMO_ARGUMENTS_HPP_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lumen/error.hpp"

namespace lumen {
namespace demo {

// Where the model comes from, as given on the command line.
struct ModelArguments {
  std::vector<std::string> positional;  // MODEL [WEIGHTS]
  std::string param;                    // --param (default: the bundled model)
  std::string bin;                      // --bin (default: the .bin beside the .param)
};

// Adds the positional model, --param, --bin and --version to `app`; `arguments->param` holds the
// default model.
inline void AddModelArguments(CLI::App& app, const std::string& program,
                              ModelArguments* arguments) {
  app.set_version_flag("--version", program + " " + LUMEN_VERSION);
  app.add_option("model", arguments->positional,
                 "MODEL.pnnx.param [MODEL.pnnx.bin], or MODEL.onnx (default: --param's)")
      ->expected(0, 2);
  app.add_option("--param", arguments->param, "the model, as the positional MODEL")
      ->capture_default_str();
  app.add_option("--bin", arguments->bin,
                 "its weights, as the positional WEIGHTS (default: the .bin beside the .param)");
}

// Puts a positional model in place of --param/--bin; throws lumen::Error when both are given.
inline void ResolveModelArguments(const CLI::App& app, ModelArguments* arguments) {
  if (arguments->positional.empty()) return;
  if (app.count("--param") > 0 || app.count("--bin") > 0) {
    throw Error(
        "give the model either as a path (MODEL [WEIGHTS]) or with --param/--bin, not both");
  }
  arguments->param = arguments->positional[0];
  if (arguments->positional.size() > 1) arguments->bin = arguments->positional[1];
}

}  // namespace demo
}  // namespace lumen

#endif  // LUMEN_DEMOS_COMMON_DEMO_ARGUMENTS_HPP_
