#pragma once
/// How much a job of a Sia/Pollux workload trains: such a workload names an application, never a
/// duration, and a job runs until its application's work is done. Work is counted in samples (epochs
/// x samples per epoch), so it pairs with throughputs in samples/s (fitthroughput's model document).
/// Statistical efficiency is left out: a larger batch is taken to need no more samples.
#include <map>
#include <set>
#include <string>

#include <hetsched/io/text_input.hpp>

namespace hetsched::sim {

struct ApplicationWork {
    double samples_per_epoch = 0;
    double epochs = 0;
    double samples() const { return samples_per_epoch * epochs; }
};

/// The six applications of Sia's simulator: its epoch counts (applications.py), and samples per epoch
/// as its validation curves count them (progress per epoch x the smallest batch profiled).
std::map<std::string, ApplicationWork> sia_applications();

/// A CSV `application,samples_per_epoch,epochs`, added to (and replacing) `base`; the applications it
/// names go to `named` when given. DataError (65) at the offending cell.
std::map<std::string, ApplicationWork> read_application_work(const io::TextInput& in,
                                                             std::map<std::string, ApplicationWork> base,
                                                             std::set<std::string>* named = nullptr);

}  // namespace hetsched::sim
