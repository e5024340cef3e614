// Runs the cases of scripts/make_sequence_layer_cases.py (test/data/sequence_layers) and the
// corpus cases in tmp/models, on one and on two threads.
#ifndef LUMEN_SUPPORT_SEQUENCE_LAYER_CASES_HPP_
#define LUMEN_SUPPORT_SEQUENCE_LAYER_CASES_HPP_

#include <gtest/gtest.h>

#include <string>

#include "support/case_runner.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace test_support {

// EXPECTs the case in `directory` to match PyTorch on 1 and 2 threads: the layers share their
// work differently on 2. A case wrong on 1 thread is not run again on 2, whose report would only
// repeat it.
inline void ExpectCaseOnOneAndTwoThreads(const std::string& directory) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE("on " + std::to_string(threads) + " thread(s)");
    CaseOptions options;
    options.threads = threads;
    if (!ExpectCaseMatches(directory, options)) return;
  }
}

}  // namespace test_support
}  // namespace lumen

// Declares TEST(Suite, case_name) running test/data/sequence_layers/<case_name> on 1 and 2 threads.
#define LUMEN_SEQUENCE_CASE_TEST(Suite, case_name)                                                 \
  TEST(Suite, case_name) {                                                                         \
    ::lumen::test_support::ExpectCaseOnOneAndTwoThreads(::lumen::test_support::SourceDirectory() + \
                                                        "/test/data/sequence_layers/" #case_name); \
  }

// Declares TEST(Suite, Corpus_<case_name>) running the corpus case tmp/models/<case_name> on 1
// and 2 threads (the golden test runs it on 1, and skips it while an op of it has no layer).
#define LUMEN_CORPUS_CASE_TEST(Suite, case_name)                                                   \
  TEST(Suite, Corpus_##case_name) {                                                                \
    ::lumen::test_support::ExpectCaseOnOneAndTwoThreads(::lumen::test_support::SourceDirectory() + \
                                                        "/tmp/models/" #case_name);                \
  }

#endif  // LUMEN_SUPPORT_SEQUENCE_LAYER_CASES_HPP_
