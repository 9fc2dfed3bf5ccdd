// Every option of every command that runs over MPI reaches its jobs: the table sets each one to
// a value other than its default, and the job's arguments, parsed as the job parses them, must
// give every option the caller's value, except the launcher's own (never passed on) and --json
// (the job's own file). A command's option missing from the table fails the test, so a new
// option is covered the day it is added.
#include "job_arguments.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"

namespace tplab::app {
namespace {

/// Thrown once the command line is parsed, before any command's callback would run.
struct Parsed {};

/// tplab's command line with every command; parse() reads the options and runs nothing.
struct ProgramParser {
  CLI::App app{"tplab"};
  int exit_code = 0;

  ProgramParser() {
    add_verify_command(app, exit_code);
    add_bench_command(app, exit_code);
    add_model_command(app, exit_code);
    add_dump_command(app, exit_code);
    add_lesson_command(app, exit_code);
    add_placements_command(app, exit_code);
    add_train_command(app, exit_code);
    // The program's own callback runs before its subcommands': leaving there, none of them
    // launches anything.
    app.parse_complete_callback([] { throw Parsed{}; });
  }

  /// Parses `words` (the program's name left out) and returns the command they name.
  CLI::App& parse(const std::vector<std::string>& words) {
    std::vector<std::string> storage = {"tplab"};
    storage.insert(storage.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (auto& w : storage) argv.push_back(w.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const Parsed&) {
    }
    CLI::App* command = &app;
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    return *command;
  }
};

struct Case {
  std::vector<std::string> path;  ///< the command's words
  std::vector<std::string> args;  ///< every option, none at its default
};

const std::vector<std::string> kLaunchOptions = {
    "--json", "/tmp/out.json", "--timeout", "17", "--hosts", "/tmp/hosts", "--allow-many-ranks"};

std::vector<std::string> with_launch(std::vector<std::string> args) {
  args.insert(args.end(), kLaunchOptions.begin(), kLaunchOptions.end());
  return args;
}

/// Every launching command with every option set, none to its default.
const std::vector<Case> kCases = {
    {{"verify"}, with_launch({"--scheme",   "2d,3d",
                              "--np",       "4,8",
                              "--dtype",    "f32",
                              "--backend",  "cuda",
                              "--comm",     "mpi",
                              "--shape",    "4,8,16,4",
                              "--seed",     "7",
                              "--exact",    "--check-finite",
                              "--depth",    "2",
                              "--regather", "--overlap",
                              "on",         "--dp",
                              "2",          "--dp-buckets",
                              "per-tensor", "--no-large-scores",
                              "--no-gpt",   "--vocab",
                              "31",         "--layers",
                              "4",          "--pp",
                              "2",          "--micro-batches",
                              "2",          "--schedule",
                              "gpipe",      "--dropout",
                              "0.1",        "--dropout-seed",
                              "5",          "--dropout-keying",
                              "local",      "--recompute",
                              "selective"})},
    {{"train"},
     with_launch({"--scheme",
                  "2.5d",
                  "--np",
                  "8",
                  "--steps",
                  "3",
                  "--dtype",
                  "f32",
                  "--shape",
                  "2,8,16,2",
                  "--vocab",
                  "32",
                  "--layers",
                  "1",
                  "--lr",
                  "0.5",
                  "--seed",
                  "9",
                  "--depth",
                  "2",
                  "--regather",
                  "--logit-offset",
                  "50",
                  "--dp",
                  "2",
                  "--dp-buckets",
                  "per-tensor",
                  "--pp",
                  "2",
                  "--micro-batches",
                  "2",
                  "--schedule",
                  "gpipe",
                  "--optimizer",
                  "adamw",
                  "--beta1",
                  "0.8",
                  "--beta2",
                  "0.9",
                  "--eps",
                  "1e-6",
                  "--weight-decay",
                  "0.05",
                  "--clip",
                  "1.5",
                  "--no-masters",
                  "--dropout",
                  "0.2",
                  "--dropout-seed",
                  "6",
                  "--overlap",
                  "on",
                  "--recompute",
                  "full",
                  "--trace",
                  "/tmp/train-trace.json"})},
    {{"bench", "scaling"}, with_launch({"--scheme",   "1d",          "--np",
                                        "2",          "--mode",      "weak",
                                        "--shape",    "2,8,16,2",    "--dtype",
                                        "f64",        "--warmup",    "0",
                                        "--repeats",  "2",           "--depth",
                                        "2",          "--regather",  "--overlap",
                                        "on",         "--compare",   "overlap,recompute,reference",
                                        "--dp",       "2",           "--dp-buckets",
                                        "per-tensor", "--trace",     "/tmp/t.json",
                                        "--dropout",  "0.1",         "--dropout-seed",
                                        "3",          "--recompute", "full",
                                        "--pp",       "2",           "--micro-batches",
                                        "2",          "--schedule",  "gpipe",
                                        "--layers",   "4",           "--vocab",
                                        "32"})},
    {{"bench", "step"}, with_launch({"--scheme",   "2d",          "--np",
                                     "4",          "--mode",      "weak",
                                     "--shape",    "2,8,16,2",    "--dtype",
                                     "f64",        "--warmup",    "3",
                                     "--repeats",  "2",           "--depth",
                                     "2",          "--regather",  "--overlap",
                                     "on",         "--compare",   "recompute,reference",
                                     "--dp",       "2",           "--dp-buckets",
                                     "per-tensor", "--trace",     "/tmp/step-trace.json",
                                     "--dropout",  "0.3",         "--dropout-seed",
                                     "4",          "--recompute", "selective",
                                     "--pp",       "1",           "--micro-batches",
                                     "4",          "--schedule",  "gpipe",
                                     "--layers",   "2",           "--vocab",
                                     "16"})},
    {{"bench", "comm"},
     with_launch({"--collective", "all_gather,broadcast", "--np", "3", "--min-bytes", "1K",
                  "--max-bytes", "4K", "--dtype", "f64", "--warmup", "5"})},
    {{"model", "compare"},
     {"--scheme",
      "2d",
      "--batch",
      "2",
      "--seq",
      "8",
      "--hidden",
      "16",
      "--heads",
      "2",
      "--shape",
      "2,8,16,2",
      "--np",
      "4",
      "--repeats",
      "3",
      "--hardware",
      "local",
      "--hardware-file",
      "/tmp/hw.json",
      "--depth",
      "2",
      "--dp",
      "2",
      "--dp-buckets",
      "per-tensor",
      "--recompute",
      "full",
      "--json",
      "/tmp/out.json",
      "--timeout",
      "17",
      "--allow-many-ranks"}},
    {{"model", "calibrate"},
     {"--profile-out", "/tmp/p.json", "--timeout", "17", "--allow-many-ranks", "--np", "2",
      "--json", "/tmp/out.json"}},
};

bool launcher_only(const CLI::Option& o) {
  for (const std::string& name : kLauncherOnlyOptions) {
    if (o.check_lname(name.substr(2))) return true;
  }
  return false;
}

std::string label(const Case& c) {
  std::string text;
  for (const auto& w : c.path) text += (text.empty() ? "" : " ") + w;
  return text;
}

TEST(JobArguments, TheTableSetsEveryOptionOfEveryLaunchingCommand) {
  for (const Case& c : kCases) {
    ProgramParser caller;
    std::vector<std::string> words = c.path;
    words.insert(words.end(), c.args.begin(), c.args.end());
    const CLI::App& command = caller.parse(words);
    for (const CLI::Option* o : command.get_options()) {
      if (o->get_name() == "--help") continue;
      EXPECT_GT(o->count(), 0u) << label(c) << " " << o->get_name()
                                << " is not in the table: give it a value other than its default";
    }
  }
}

TEST(JobArguments, EveryOptionTheCallerGaveReachesTheJob) {
  for (const Case& c : kCases) {
    ProgramParser caller;
    std::vector<std::string> words = c.path;
    words.insert(words.end(), c.args.begin(), c.args.end());
    const CLI::App& command = caller.parse(words);
    const std::vector<std::string> job = job_arguments(command, {{"--json", {"/job/1.json"}}});
    ASSERT_GE(job.size(), c.path.size());
    EXPECT_EQ(std::vector<std::string>(job.begin(), job.begin() + c.path.size()), c.path)
        << label(c) << ": a job runs the command it was launched by";
    ProgramParser in_job;
    const CLI::App& relaunched = in_job.parse(job);
    for (const CLI::Option* o : command.get_options()) {
      if (o->get_name() == "--help") continue;
      // by its long name: CLI11 names a hidden option "" (the runner's own --np and --json)
      const CLI::Option* seen = relaunched.get_option("--" + o->get_lnames().front());
      if (launcher_only(*o)) {
        EXPECT_EQ(seen->count(), 0u) << label(c) << " " << o->get_name() << " reached the job";
      } else if (o->check_lname("json")) {
        EXPECT_EQ(seen->results(), std::vector<std::string>{"/job/1.json"}) << label(c);
      } else {
        EXPECT_EQ(seen->results(), o->results()) << label(c) << " " << o->get_name();
      }
    }
  }
}

TEST(JobArguments, AnOverrideReplacesTheCallersValue) {
  ProgramParser caller;
  const CLI::App& command = caller.parse(
      {"bench", "step", "--scheme", "2d,3d", "--np", "4,8", "--compare", "overlap,reference"});
  const std::vector<std::string> job =
      job_arguments(command, {{"--scheme", {"3d"}}, {"--np", {"8"}}, {"--compare", {"overlap"}}});
  ProgramParser in_job;
  const CLI::App& relaunched = in_job.parse(job);
  EXPECT_EQ(relaunched.get_option("--scheme")->results(), std::vector<std::string>{"3d"});
  EXPECT_EQ(relaunched.get_option("--np")->results(), std::vector<std::string>{"8"});
  EXPECT_EQ(relaunched.get_option("--compare")->results(), std::vector<std::string>{"overlap"});
}

TEST(JobArguments, AValueThatStartsWithADashStaysAValue) {
  ProgramParser caller;
  const CLI::App& command = caller.parse({"train", "--logit-offset=-50"});
  ProgramParser in_job;
  const CLI::App& relaunched = in_job.parse(job_arguments(command, {}));
  EXPECT_EQ(relaunched.get_option("--logit-offset")->results(), std::vector<std::string>{"-50"});
}

TEST(JobArguments, AnEmptyValueStaysEmptyAndTakesNoOtherOption) {
  ProgramParser caller;
  const CLI::App& command = caller.parse({"model", "compare", "--hardware", "", "--scheme", "1d"});
  ProgramParser in_job;
  const CLI::App& relaunched = in_job.parse(job_arguments(command, {{"--np", {"2"}}}));
  EXPECT_EQ(relaunched.get_option("--hardware")->results(), std::vector<std::string>{""});
  EXPECT_EQ(relaunched.get_option("--scheme")->results(), std::vector<std::string>{"1d"});
  EXPECT_EQ(relaunched.get_option("--np")->results(), std::vector<std::string>{"2"});
}

TEST(JobArguments, AnOverrideOfAnOptionTheCommandLacksIsABug) {
  ProgramParser caller;
  const CLI::App& command = caller.parse({"verify"});
  EXPECT_THROW(job_arguments(command, {{"--shpae", {"1,2,3,4"}}}), std::logic_error);
}

}  // namespace
}  // namespace tplab::app
