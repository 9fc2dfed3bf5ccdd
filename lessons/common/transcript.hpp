/// @file
/// What one rank of a lesson's exercise produced, as the judge reads it: the tensors the check
/// took from the exercise, the collectives the rank's counters recorded, and where each report
/// and part ended. Under `tplab lesson check` and `grade` the exercise's process writes this
/// and nothing else; the judge, the lesson's program built from the library's solution and run
/// as a job of its own, reads it and compares every tensor with the reference. No verdict is
/// ever made where the exercise runs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/comm_counters.hpp"
#include "core/tensor.hpp"

namespace tplab::lessons {

/// One thing a rank's run of the exercise produced, in the order the check met it.
struct TranscriptEvent {
  /// What happened.
  enum class Kind {
    part,      ///< a part began: name
    tensor,    ///< a tensor the check took from the exercise: name, extents, values
    counts,    ///< what the rank's counters recorded: counts
    report,    ///< the check compared what it took since the last report: name is the title
    part_end,  ///< the part ended: outcome ("ran", "stopped", "threw"), todo, message
  };
  Kind kind = Kind::part;               ///< which of the kinds above
  std::string name;                     ///< the part's or tensor's name, the report's title
  Extents extents;                      ///< tensor: this rank's shard's extents
  std::vector<double> values;           ///< tensor: its values, row-major
  std::vector<CollectiveCount> counts;  ///< counts: the rank's counters' snapshot
  /// part_end: "ran", "stopped" or "threw"; the TODO it stopped at; the error it threw.
  ///@{
  std::string outcome, todo, message;
  ///@}
};

/// The kind's name as the JSON writes it: "part", "tensor", "counts", "report", "part_end".
std::string_view event_kind_name(TranscriptEvent::Kind kind);

/// One rank's transcript: {"rank", "size", "seed", "events": [...], "complete": true}.
struct Transcript {
  int rank = 0;                         ///< the rank that wrote it
  int size = 1;                         ///< the world size of its job
  std::uint64_t seed = 0;               ///< the run's seed (TPLAB_LESSON_SEED)
  std::vector<TranscriptEvent> events;  ///< what it produced, in order
};

/// `t` as JSON. Values keep every bit (17 significant digits); NaN and infinities are written
/// as the strings "nan", "inf" and "-inf".
nlohmann::json transcript_json(const Transcript& t);

/// A transcript from its JSON; nothing when `document` is not one (a file the exercise wrote
/// itself in another form, or cut short), with why in `why`.
std::optional<Transcript> parse_transcript(const nlohmann::json& document, std::string& why);

/// The name of rank `rank`'s transcript in the folder the launcher gives the job.
std::string transcript_file_name(int rank);

}  // namespace tplab::lessons
