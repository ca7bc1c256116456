# examples/Makefile's targets in their small version (SMALL=1), each into its own folder under the
# build, with the files each must leave; and merge-results.sh on hand-made result files.
set(EXAMPLES_RUNNER ${CMAKE_CURRENT_SOURCE_DIR}/examples/make-target.sh)
add_test(NAME examples/plans COMMAND ${EXAMPLES_RUNNER} ${CMAKE_BINARY_DIR} plans
         plans/espresso-llama-1.3b.yaml plans/espresso-llama-1.3b.timeline.csv
         plans/sia-gpt2-medium.yaml plans/sia-gpt3-6.7b.yaml
         plans/gavel-bert-large.yaml plans/modern-llama-3.1-8b.yaml)
add_test(NAME examples/sweep COMMAND ${EXAMPLES_RUNNER} ${CMAKE_BINARY_DIR} sweep
         results.csv=7 sweep/fft-1.csv=2 sweep/jobs/gavel-0.2.csv=41 sweep/rounds/fifo-1.csv)
add_test(NAME examples/plots COMMAND ${EXAMPLES_RUNNER} ${CMAKE_BINARY_DIR} plots
         plots/jct-cdf.png plots/ftf.png plots/busy-gpus.png plots/pipeline-timeline.png)
set_tests_properties(examples/plots PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(examples/plans examples/sweep examples/plots PROPERTIES TIMEOUT 120)
add_test(NAME examples/merge-results COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples/merge.sh)
