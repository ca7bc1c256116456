# The Slurm cron loop (examples/slurm/hetsched-slurm) against a real single-host Slurm; skipped (77)
# where the daemons cannot start.
add_test(NAME slurm/cron-loop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm/loop.sh ${CMAKE_BINARY_DIR})
set_tests_properties(slurm/cron-loop PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE)
# examples/slurm/sweep.sbatch: the small sweep as an array job on the same kind of local Slurm.
add_test(NAME slurm/sweep-array COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm/sweep.sh ${CMAKE_BINARY_DIR})
set_tests_properties(slurm/sweep-array PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE)
# The loop's reading of multi-node jobs and hostlists, against scripted Slurm commands.
add_test(NAME slurm/multinode-state COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm/multinode.sh ${CMAKE_BINARY_DIR})
set_tests_properties(slurm/multinode-state PROPERTIES SKIP_RETURN_CODE 77)
