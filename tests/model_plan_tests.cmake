# `tplab model plan`, included by tests/CMakeLists.txt (its tplab_cli_test, expect and
# tplab_bin): the seeds' 128-GPU cluster, TP beyond a node, the JSON and the plot, bad input.
set(plan_json ${CMAKE_CURRENT_BINARY_DIR}/model_plan.json)
set(plan_png ${CMAKE_CURRENT_BINARY_DIR}/model_plan.png)
tplab_cli_test(model_plan ${expect} 0 "^  best: DP 8 x TP 4 x PP 4 with 1d \\(t=4\\): " --
               ${tplab_bin} model plan --json ${plan_json})
tplab_cli_test(model_plan_tp_across_nodes ${expect} 0
               "^ +16 +DP 8 x TP 16 x PP 1 +1d .* across 2 nodes, 50 GB/s|^  TP 8 -> 16: the TP groups leave the node"
               --count 2 -- ${tplab_bin} model plan --gpus 128 --ranks-per-node 8)
tplab_cli_test(model_plan_node_of_16 ${expect} 0 "^ +16 +DP .* within a node, 450 GB/s" --
               ${tplab_bin} model plan --ranks-per-node 16)
tplab_cli_test(model_plan_plot ${expect} 0 "^wrote .*model_plan.png" -- ${Python3_EXECUTABLE}
               ${PROJECT_SOURCE_DIR}/bench/report/plan_plot.py ${plan_json} -o ${plan_png})
set_tests_properties(cli.model_plan_plot PROPERTIES DEPENDS cli.model_plan)
tplab_cli_test(model_plan_json ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_plan_json.py
               ${plan_json} ${plan_png})
set_tests_properties(cli.model_plan_json PROPERTIES DEPENDS "cli.model_plan;cli.model_plan_plot")
# Recomputation decides what fits: on 40 GiB devices selective recomputation lets a shallower,
# faster pipeline fit than keeping everything does.
tplab_cli_test(model_plan_memory_bound ${expect} 0 "^  best: DP 2 x TP 4 x PP 16 with 1d" --
               ${tplab_bin} model plan --memory-gib 40)
tplab_cli_test(model_plan_recompute ${expect} 0 "^  best: DP 4 x TP 4 x PP 8 with 1d" --
               ${tplab_bin} model plan --memory-gib 40 --recompute selective)
tplab_cli_test(model_plan_out_of_memory ${expect} 0 "^  best: none: no layout fits in 4.0 GiB" --
               ${tplab_bin} model plan --memory-gib 4)
tplab_cli_test(model_plan_plot_bad_input ${expect} 2 "/dev/null: not JSON" -- ${Python3_EXECUTABLE}
               ${PROJECT_SOURCE_DIR}/bench/report/plan_plot.py /dev/null -o ${plan_png}.unused)
# --dp and --pp keep the layouts of those degrees (the JSON checker confirms it holds those
# alone); --micro-batches m sets b = B / (D m); GPipe keeps all m micro-batches on every stage,
# so the seeds' layout no longer fits.
set(plan_fixed_json ${CMAKE_CURRENT_BINARY_DIR}/model_plan_fixed.json)
tplab_cli_test(model_plan_fixed ${expect} 0 "^  best: DP 8 x TP 4 x PP 4 with 1d \\(t=4\\): " --
               ${tplab_bin} model plan --dp 8 --pp 4 --micro-batches 64 --json ${plan_fixed_json})
tplab_cli_test(model_plan_fixed_json ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_plan_json.py
               ${plan_fixed_json})
set_tests_properties(cli.model_plan_fixed_json PROPERTIES DEPENDS cli.model_plan_fixed)
tplab_cli_test(model_plan_gpipe ${expect} 0 "^ +8 +4 +4 1d +t=4 +64 .* exceeds the device's 74.5 GiB$" --
               ${tplab_bin} model plan --dp 8 --pp 4 --schedule gpipe)
# Bad input: exit 2 and the reason.
foreach(case IN ITEMS
    "part_node;--gpus 100 does not fill nodes of 8 .* give a multiple of 8, such as 104;--gpus 100"
    "batch;--global-batch 5 is not divisible by DP x --micro-batch 2 for any DP degree of 8 devices;--gpus 8 --global-batch 5 --micro-batch 2"
    "zero_layers;--layers: '0' is not a count;--layers 0"
    "negative_hidden;--hidden -8: give a positive integer;--hidden -8"
    "zero_ranks_per_node;--ranks-per-node 0: give a positive integer;--ranks-per-node 0"
    "efficiency;--efficiency: '1.5' is not a share of the peak;--efficiency 1.5"
    "memory;--memory-gib: '0' is not a positive number;--memory-gib 0"
    "two_counts;model plan plans one cluster: give one device count to --gpus;--gpus 8,16"
    "one_node;hardware 'local' has no inter-node link;--hardware local --gpus 4"
    "rank_order;--rank-order: 'dp-tp-pp' is not one of tp-pp-dp or tp-dp-pp;--rank-order dp-tp-pp"
    "with_batch;model plan takes no option --batch;--batch 8"
    "pp;no DP x TP x PP layout of 128 devices has PP = 3 \\(--pp\\): DP x TP x PP = 128, so DP x PP must divide 128;--pp 3"
    "micro_batches_no_dp;--micro-batches 4 needs --dp D;--micro-batches 4"
    "micro_batches_split;--global-batch 512 is not divisible by --dp 8 x --micro-batches 3;--dp 8 --micro-batches 3"
    "both_micro;give --micro-batch b .* or --micro-batches m .*, not both;--dp 2 --micro-batch 2 --micro-batches 4"
    "schedule_one_stage;--schedule has no effect here;--pp 1 --schedule gpipe")
  list(GET case 0 label)
  list(GET case 1 pattern)
  list(GET case 2 arguments)
  separate_arguments(arguments)
  tplab_cli_test(model_plan_bad_${label} ${expect} 2 "${pattern}" -- ${tplab_bin} model plan
                 ${arguments})
endforeach()
tplab_cli_test(model_plan_options_need_plan ${expect} 2 "model takes no option --layers" --
               ${tplab_bin} model --layers 32)
# --plot draws the same plot from the plan the command just made.
tplab_cli_test(model_plan_plot_option ${expect} 0 "^wrote the plot to .*model_plan_option.png$" --
               ${tplab_bin} model plan --plot ${CMAKE_CURRENT_BINARY_DIR}/model_plan_option.png)
tplab_cli_test(model_plan_plot_option_png ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_plan_json.py
               ${plan_json} ${CMAKE_CURRENT_BINARY_DIR}/model_plan_option.png)
set_tests_properties(cli.model_plan_plot_option_png PROPERTIES DEPENDS
                     "cli.model_plan;cli.model_plan_plot_option")
tplab_cli_test(model_plan_plot_needs_plan ${expect} 2 "model takes no option --plot" --
               ${tplab_bin} model --plot /tmp/unused.png)
tplab_cli_test(model_plan_plot_folder ${expect} 2 "--plot .*that is a folder" --
               ${tplab_bin} model plan --plot ${CMAKE_CURRENT_BINARY_DIR})
