#include "transcript.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace tplab::lessons {
namespace {

using Kind = TranscriptEvent::Kind;

constexpr const char* kKindNames[] = {"part", "tensor", "counts", "report", "part_end"};

nlohmann::json value_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double value_from(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string text = v.get<std::string>();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw nlohmann::json::other_error::create(501, "not a number: " + text, &v);
}

nlohmann::json count_json(const CollectiveCount& c) {
  return {{"collective", static_cast<int>(c.collective)},
          {"op", static_cast<int>(c.op)},
          {"root", c.root},
          {"group", c.group},
          {"group_size", c.group_size},
          {"calls", c.calls},
          {"elements", c.elements},
          {"bytes", c.bytes},
          {"bus_elements", c.bus_elements},
          {"seconds", c.seconds},
          {"exposed_seconds", c.exposed_seconds}};
}

CollectiveCount count_from(const nlohmann::json& j) {
  CollectiveCount c;
  const int collective = j.at("collective").get<int>(), op = j.at("op").get<int>();
  if (collective < 0 || collective > static_cast<int>(Collective::recv) || op < 0 ||
      op > static_cast<int>(ReduceOp::max)) {
    throw nlohmann::json::other_error::create(501, "not a collective", &j);
  }
  c.collective = static_cast<Collective>(collective);
  c.op = static_cast<ReduceOp>(op);
  c.root = j.at("root").get<int>();
  c.group = j.at("group").get<std::string>();
  c.group_size = j.at("group_size").get<int>();
  c.calls = j.at("calls").get<std::int64_t>();
  c.elements = j.at("elements").get<std::int64_t>();
  c.bytes = j.at("bytes").get<std::int64_t>();
  c.bus_elements = j.at("bus_elements").get<double>();
  c.seconds = j.at("seconds").get<double>();
  c.exposed_seconds = j.at("exposed_seconds").get<double>();
  return c;
}

}  // namespace

std::string_view event_kind_name(TranscriptEvent::Kind kind) {
  return kKindNames[static_cast<int>(kind)];
}

nlohmann::json transcript_json(const Transcript& t) {
  nlohmann::json events = nlohmann::json::array();
  for (const TranscriptEvent& e : t.events) {
    nlohmann::json j = {{"kind", kKindNames[static_cast<int>(e.kind)]}, {"name", e.name}};
    switch (e.kind) {
      case Kind::tensor: {
        nlohmann::json values = nlohmann::json::array();
        for (double v : e.values) values.push_back(value_json(v));
        j["extents"] = e.extents;
        j["values"] = std::move(values);
        break;
      }
      case Kind::counts: {
        nlohmann::json counts = nlohmann::json::array();
        for (const CollectiveCount& c : e.counts) counts.push_back(count_json(c));
        j["counts"] = std::move(counts);
        break;
      }
      case Kind::part_end:
        j["outcome"] = e.outcome;
        j["todo"] = e.todo;
        j["message"] = e.message;
        break;
      case Kind::part:
      case Kind::report:
        break;
    }
    events.push_back(std::move(j));
  }
  return {{"rank", t.rank},
          {"size", t.size},
          {"seed", t.seed},
          {"events", std::move(events)},
          {"complete", true}};
}

std::optional<Transcript> parse_transcript(const nlohmann::json& document, std::string& why) {
  try {
    if (!document.is_object() || !document.value("complete", false)) {
      why = "it is not a finished transcript";
      return std::nullopt;
    }
    Transcript t;
    t.rank = document.at("rank").get<int>();
    t.size = document.at("size").get<int>();
    t.seed = document.at("seed").get<std::uint64_t>();
    for (const nlohmann::json& j : document.at("events")) {
      TranscriptEvent e;
      const std::string kind = j.at("kind").get<std::string>();
      int k = 0;
      while (k < 5 && kind != kKindNames[k]) ++k;
      if (k == 5) {
        why = fmt::format("it holds an event of no known kind ('{}')", kind);
        return std::nullopt;
      }
      e.kind = static_cast<Kind>(k);
      e.name = j.at("name").get<std::string>();
      switch (e.kind) {
        case Kind::tensor:
          e.extents = j.at("extents").get<Extents>();
          for (const nlohmann::json& v : j.at("values")) e.values.push_back(value_from(v));
          break;
        case Kind::counts:
          for (const nlohmann::json& c : j.at("counts")) e.counts.push_back(count_from(c));
          break;
        case Kind::part_end:
          e.outcome = j.at("outcome").get<std::string>();
          e.todo = j.at("todo").get<std::string>();
          e.message = j.at("message").get<std::string>();
          break;
        case Kind::part:
        case Kind::report:
          break;
      }
      t.events.push_back(std::move(e));
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    why = fmt::format("it is not a transcript ({})", e.what());
    return std::nullopt;
  }
}

std::string transcript_file_name(int rank) {
  return fmt::format("transcript-rank{}.json", rank);
}

}  // namespace tplab::lessons
