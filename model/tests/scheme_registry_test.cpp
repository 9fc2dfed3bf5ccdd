// The scheme registry and the cost model's table beside it: every entry builds the scheme of its
// name, has a cost model and a GPT layout that work at its default world sizes, and the two
// tables list the same schemes in the same order.
#include "registry/scheme_registry.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "cost_1d_sp.hpp"
#include "gpt/gpt_layout.hpp"
#include "rank_cost.hpp"
#include "registry/make_scheme.hpp"
#include "scheme_costs.hpp"

namespace tplab::model {
namespace {

// The default shapes of `./tplab verify` (app/verify_command.cpp) and of `./tplab train`
// (app/train_command.cpp), which every scheme splits at its default world sizes.
constexpr BlockShape kVerifyShape{12, 6, 72, 12};
const gpt::GptShape kTrainShape{{4, 16, 32, 4}, 64, 2};

TEST(SchemeRegistry, EveryEntryBuildsTheSchemeOfItsName) {
  for (const SchemeEntry& entry : scheme_registry()) {
    EXPECT_EQ(entry.make({})->name(), entry.name);
    EXPECT_EQ(make_scheme(entry.name)->name(), entry.name);
    EXPECT_FALSE(entry.help.empty()) << entry.name;
  }
}

TEST(SchemeRegistry, TheHelpListNamesEverySchemeInTeachingOrder) {
  EXPECT_EQ(scheme_help_list(), "1d, 1d-sp, 2d, 2.5d, 3d");
  EXPECT_EQ(scheme_names(), (std::vector<std::string>{"1d", "1d-sp", "2d", "2.5d", "3d"}));
}

TEST(SchemeRegistry, AnUnknownNameIsRefusedWithTheKnownOnes) {
  try {
    find_scheme("5d");
    FAIL() << "5d was found";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown scheme '5d' (known: 1d, 1d-sp, 2d, 2.5d, 3d)");
  }
  EXPECT_THROW(cost_model_of("5d"), UsageError);
  EXPECT_THROW(gpt::make_gpt_layout("5d", {}), UsageError);
}

TEST(SchemeRegistry, TheCostModelsListTheRegistrysSchemesInItsOrder) {
  ASSERT_EQ(scheme_cost_models().size(), scheme_registry().size());
  for (std::size_t i = 0; i < scheme_registry().size(); ++i) {
    EXPECT_EQ(scheme_cost_models()[i].scheme, scheme_registry()[i].name);
    EXPECT_NE(scheme_cost_models()[i].rank_cost, nullptr);
  }
}

TEST(SchemeRegistry, EveryCostModelRunsAtItsSchemesDefaultWorldSizes) {
  for (const SchemeEntry& entry : scheme_registry()) {
    const auto scheme = entry.make({});
    for (const int p : scheme->default_world_sizes()) {
      SCOPED_TRACE(std::string(entry.name) + " at np=" + std::to_string(p));
      const RankCost cost = rank_cost(entry.name, {}, p, kVerifyShape, Workload::block);
      EXPECT_EQ(cost.grid, scheme->describe_grid(p, kVerifyShape));
      EXPECT_GT(cost.parameter_elements, 0);
      EXPECT_GT(cost.activation_elements, 0);
      EXPECT_EQ(cost.comm.total().rows().empty(), p == 1);
    }
  }
}

TEST(SchemeRegistry, EveryGptLayoutSplitsTheDefaultModelAtTheTrainWorldSize) {
  for (const SchemeEntry& entry : scheme_registry()) {
    SCOPED_TRACE(entry.name);
    const auto scheme = entry.make({});
    const auto layout = entry.make_gpt_layout({});
    EXPECT_NO_THROW(gpt::validate_gpt(*scheme, *layout, entry.train_world_size, kTrainShape));
    EXPECT_FALSE(layout->placements(entry.train_world_size, kTrainShape).empty());
  }
}

TEST(SchemeRegistry, TheDepthComesFromTheScheme) {
  EXPECT_EQ(make_scheme("2.5d")->depth_for(8, kVerifyShape), 2);
  EXPECT_EQ(make_scheme("2.5d", {.depth = 1})->depth_for(4, kVerifyShape), 1);
  EXPECT_EQ(make_scheme("2d")->depth_for(4, kVerifyShape), 1);
}

TEST(SchemeRegistry, OnlySequenceParallelismReportsWhatItKeepsLessThanOneD) {
  for (const SchemeCostModel& model : scheme_cost_models()) {
    EXPECT_EQ(model.kept_savings != nullptr, model.scheme == "1d-sp") << model.scheme;
  }
  const KeptSavings savings = cost_model_of("1d-sp").kept_savings({1, 4, 8, 2}, 2, Workload::block);
  EXPECT_EQ(savings.compared_with, "1d");
  EXPECT_EQ(savings.elements,
            sequence_parallel_activation_savings({1, 4, 8, 2}, 2, Workload::block));
}

}  // namespace
}  // namespace tplab::model
