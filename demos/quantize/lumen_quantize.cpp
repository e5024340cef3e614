// lumen_quantize: an fp32 PNNX model in, a quantised PNNX model out, which lumen_run, the demos
// and Python load like any other (lumen::Quantize in include/lumen/quantize.hpp does the work).
//
//   lumen_quantize resnet18.pnnx.param --calibration calib/ --output resnet18_int8
//   lumen_quantize resnet18.pnnx.param --calibration calib/ --method percentile --percentile 99.99
//   lumen_quantize resnet18.pnnx.param --to bf16 --output resnet18_bf16
//
// The calibration folder holds one file per sample: FILE.npy (float32) or FILE.f32 (raw float32 at
// the model's declared input shape); a model with one input. Exit status: 0 written, 2 bad usage
// or input.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "io/calibration_folder.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/quantize.hpp"

namespace {

// The command line.
struct Options {
  std::vector<std::string> model_files;  // MODEL.pnnx.param [MODEL.pnnx.bin]
  std::string calibration_folder;
  std::string output_prefix;
  std::string precision = "int8";
  std::string method = "minmax";
  double percentile = 99.99;
  int threads = 0;
  std::vector<std::string> keep_float;  // operator names
  bool no_bias_correction = false;
};

// The model's one input shape, as the file declares it (every extent known), for .f32 files.
lumen::Shape DeclaredInputShape(const lumen::Model& model, const std::string& path) {
  const std::vector<std::vector<int>> shapes = model.export_input_shapes();
  if (shapes.size() != 1) {
    throw lumen::Error(lumen::Concat(path, ": a calibration folder feeds a model of one input; ",
                                     "this one takes ", shapes.size(),
                                     " (lumen.quantize in Python takes lists of inputs)"));
  }
  lumen::Shape shape;
  for (int extent : shapes[0]) shape.push_back(extent < 0 ? 0 : static_cast<uint32_t>(extent));
  return shape;
}

// Quantises as `options` say and prints what changed.
void Run(const Options& options) {
  const std::string& model_path = options.model_files.at(0);
  lumen::QuantizeOptions quantize;
  if (options.model_files.size() > 1) quantize.weights_path = options.model_files[1];
  quantize.precision = options.precision == "bf16" ? lumen::QuantizedPrecision::kBFloat16
                                                   : lumen::QuantizedPrecision::kInt8;
  quantize.method = options.method == "percentile" ? lumen::CalibrationMethod::kPercentile
                    : options.method == "mse"      ? lumen::CalibrationMethod::kMse
                                                   : lumen::CalibrationMethod::kMinMax;
  quantize.percentile = options.percentile;
  quantize.threads = options.threads;
  quantize.keep_float = options.keep_float;
  quantize.correct_bias = !options.no_bias_correction;
  std::vector<std::vector<lumen::Tensor>> calibration;
  if (quantize.precision == lumen::QuantizedPrecision::kInt8) {
    if (options.calibration_folder.empty()) {
      throw lumen::Error("int8 needs --calibration DIR (or --to bf16, which needs none)");
    }
    lumen::ModelOptions model_options;
    model_options.weights_path = quantize.weights_path;
    const auto model = lumen::Model::Load(model_path, model_options);
    calibration = lumen::ReadCalibrationFolder(options.calibration_folder,
                                               DeclaredInputShape(*model, model_path));
  }
  const lumen::QuantizeReport report =
      lumen::Quantize(model_path, calibration, options.output_prefix, quantize);
  for (const lumen::QuantizedLayer& layer : report.layers) {
    if (quantize.precision == lumen::QuantizedPrecision::kInt8) {
      std::printf("%-50s -> %s  input [%g, %g] scale %g zero point %d\n", layer.description.c_str(),
                  layer.new_type.c_str(), layer.input_min, layer.input_max, layer.input_scale,
                  layer.input_zero_point);
    } else {
      std::printf("%-50s weight -> bf16\n", layer.description.c_str());
    }
  }
  std::printf("%zu layers %s (%d calibration samples): wrote %s and %s\n", report.layers.size(),
              options.precision == "bf16" ? "rounded to bf16" : "quantised to int8",
              report.calibration_samples, report.param_path.c_str(), report.bin_path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app(
      "lumen_quantize: write a quantised (int8, calibrated; or bf16) copy of a PNNX model");
  app.set_version_flag("--version", std::string("lumen_quantize ") + LUMEN_VERSION);
  app.add_option("model", options.model_files, "MODEL.pnnx.param [MODEL.pnnx.bin]")
      ->required()
      ->expected(1, 2);
  app.add_option("--calibration", options.calibration_folder,
                 "a folder of calibration inputs, one file per sample: FILE.npy or FILE.f32 (raw "
                 "float32 at the model's declared input shape)");
  app.add_option("--output", options.output_prefix,
                 "PREFIX: writes PREFIX.pnnx.param and PREFIX.pnnx.bin")
      ->required();
  app.add_option("--to", options.precision, "int8 (default) or bf16 (weights only, no calibration)")
      ->check(CLI::IsMember({"int8", "bf16"}));
  app.add_option("--method", options.method,
                 "how activation ranges are chosen: minmax (default), percentile, or mse (the "
                 "range that adds the least squared error, rounding and clipping)")
      ->check(CLI::IsMember({"minmax", "percentile", "mse"}));
  app.add_option("--percentile", options.percentile,
                 "for --method percentile: % of values kept on each side (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  app.add_option("--threads", options.threads, "threads for the calibration runs (0: every core)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--keep-float", options.keep_float,
                 "NAME ...: operators to leave in fp32 (say, a stem reading raw pixels)");
  app.add_flag("--no-bias-correction", options.no_bias_correction,
               "keep the biases as they are (by default each quantised layer's bias absorbs the "
               "mean error its quantisation adds on the calibration inputs)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    Run(options);
  } catch (const lumen::Error& error) {
    std::fprintf(stderr, "lumen_quantize: %s\n", error.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "lumen_quantize: out of memory\n");
    return 2;
  }
  return 0;
}
