// The transcript an exercise's job writes for its judge: every bit of its values kept, NaN and
// infinities too, and anything that is not a finished transcript refused with a reason.
#include "lessons/common/transcript.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tplab::lessons {
namespace {

TranscriptEvent tensor(const std::string& name, std::vector<double> values) {
  TranscriptEvent e;
  e.kind = TranscriptEvent::Kind::tensor;
  e.name = name;
  e.extents = {static_cast<std::int64_t>(values.size())};
  e.values = std::move(values);
  return e;
}

TEST(Transcript, KeepsEveryBitAndTheNonFiniteValues) {
  Transcript t{1, 4, 77, {}};
  const double third = 1.0 / 3.0, tiny = std::numeric_limits<double>::denorm_min();
  t.events.push_back(tensor("Y", {third, tiny, -0.0, std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), std::nan("")}));
  TranscriptEvent counts;
  counts.kind = TranscriptEvent::Kind::counts;
  CollectiveCount c;
  c.collective = Collective::broadcast;
  c.root = 2;
  c.group = "row";
  c.calls = 3;
  c.elements = 96;
  counts.counts = {c};
  t.events.push_back(counts);
  TranscriptEvent end;
  end.kind = TranscriptEvent::Kind::part_end;
  end.name = "forward";
  end.outcome = "stopped";
  end.todo = "exercise.cpp:12";
  t.events.push_back(end);

  std::string why;
  const std::optional<Transcript> back =
      parse_transcript(nlohmann::json::parse(transcript_json(t).dump()), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->rank, 1);
  EXPECT_EQ(back->size, 4);
  EXPECT_EQ(back->seed, 77u);
  ASSERT_EQ(back->events.size(), 3u);
  const std::vector<double>& v = back->events[0].values;
  EXPECT_EQ(v[0], third);
  EXPECT_EQ(v[1], tiny);
  EXPECT_TRUE(std::signbit(v[2]));
  EXPECT_EQ(v[3], std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[4], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(back->events[1].counts.at(0).collective, Collective::broadcast);
  EXPECT_EQ(back->events[1].counts.at(0).root, 2);
  EXPECT_EQ(back->events[1].counts.at(0).elements, 96);
  EXPECT_EQ(back->events[2].outcome, "stopped");
  EXPECT_EQ(back->events[2].todo, "exercise.cpp:12");
}

TEST(Transcript, RefusesWhatIsNotAFinishedTranscript) {
  std::string why;
  // A verdict in the transcript's place, as a cheat would write it.
  EXPECT_FALSE(parse_transcript(nlohmann::json::parse(R"({"verdict": "pass"})"), why));
  EXPECT_EQ(why, "it is not a finished transcript");
  nlohmann::json cut = transcript_json(Transcript{0, 1, 0, {tensor("Y", {1.0})}});
  cut["events"][0].erase("values");
  EXPECT_FALSE(parse_transcript(cut, why));
  EXPECT_NE(why.find("it is not a transcript"), std::string::npos);
  nlohmann::json odd = transcript_json(Transcript{0, 1, 0, {tensor("Y", {1.0})}});
  odd["events"][0]["kind"] = "verdict";
  EXPECT_FALSE(parse_transcript(odd, why));
  EXPECT_EQ(why, "it holds an event of no known kind ('verdict')");
  odd["events"][0]["kind"] = "tensor";
  odd["events"][0]["values"][0] = "pass";
  EXPECT_FALSE(parse_transcript(odd, why));
}

}  // namespace
}  // namespace tplab::lessons
