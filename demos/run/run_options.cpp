#include "run_options.hpp"

#include <CLI/CLI.hpp>

namespace lumen {
namespace run {

int ParseOptions(int argc, char** argv, Options* options) {
  CLI::App app(
      "lumen_run: run a model, compare it with PyTorch, time it, summarise it, read its operands.\n"
      "With a model and nothing else, it makes inputs at the model's declared shapes and runs "
      "once; add --repeat N to time it");
  app.set_version_flag("--version", std::string("lumen_run ") + LUMEN_VERSION);
  app.add_option("--case", options->case_directory,
                 "a golden case directory (case.txt, model.pnnx.param/.bin or model.onnx, inputs, "
                 "PyTorch's outputs)");
  app.add_option("model", options->model_files, "MODEL.pnnx.param [MODEL.pnnx.bin], or MODEL.onnx")
      ->expected(0, 2);
  app.add_option("--input", options->input_specs,
                 "one per model input, in order: FILE.npy (shape from the file; float32, or "
                 "float64/int32/int64/bool converted), FILE.f32:N,C,H,W (raw float32), or FILE.f32 "
                 "at the input's --shape or declared shape; with --case, replaces the case's "
                 "inputs. Without --input, inputs are made up (values in [0,1), fixed seed)");
  app.add_option("--shape", options->shape_specs,
                 "NAME:1,3,224,224: the shape of the made-up input NAME (required for extents the "
                 "model leaves open; overrides a declared one)");
  app.add_option("--output-dir", options->output_directory,
                 "where outputs and --extract are written (default: .)");
  app.add_flag("--save-outputs", options->save_outputs,
               "write each output as OUTPUT_DIR/NAME.npy (written anyway, as out0.f32 ..., when "
               "raw --input files are given without references; .npy when they are .npy)");
  app.add_option("--threads", options->threads,
                 "threads per session (0, the default: every core this process may use)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--repeat", options->repeat,
                 "after the warm-up runs, time N runs and print min / median / p90 / max")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", options->warmup, "untimed runs before --repeat's (default 3)")
      ->check(CLI::Range(0, 1000000));
  app.add_flag("--json", options->json,
               "print one JSON object (model, inputs, outputs, comparison, latency, or the "
               "summary) instead of text, for scripts");
  app.add_flag("--summary", options->summary,
               "print the inputs, outputs, operator counts, parameters and planned activation "
               "memory at the declared (or --shape) shapes, and exit");
  app.add_flag("--profile", options->profile,
               "print a per-operator time table (medians over --repeat runs)");
  app.add_option("--extract", options->extract,
                 "compute only what operand NAME needs and write it to OUTPUT_DIR/NAME.f32");
  app.add_option("--dump", options->dump_directory,
                 "write every operand to DIR/<name>.f32 and DIR/index.txt");
  app.add_option("--sessions", options->sessions,
                 "run N sessions of the one loaded model at once, each in its own thread, check "
                 "each, print the peak RSS")
      ->check(CLI::Range(1, 256));
  app.add_option("--max-memory", options->max_memory_megabytes,
                 "refuse to plan more than this many MB (2^20 bytes; default: 3/4 of physical "
                 "memory or of ulimit -v)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-fuse", options->no_fuse,
               "do not run the graph passes (x*sigmoid(x) as SiLU, channels-last blocks "
               "channels-first, activations fused into the layers before them)");
  app.add_flag("--list-operators", options->list_operators,
               "print every op type Lumen runs (pnnx's spelling), one per line, and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace run
}  // namespace lumen
