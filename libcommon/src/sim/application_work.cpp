#include <hetsched/sim/application_work.hpp>

#include <set>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>

namespace hetsched::sim {

std::map<std::string, ApplicationWork> sia_applications() {
    // siasosp23/artifacts, sia-simulator/applications.py (max_epochs) and traces/<app>/validation-*.csv.
    return {
        {"bert", {88644, 2}},            // SQuAD v1.1 training set
        {"cifar10", {50048, 100}},       // CIFAR-10
        {"deepspeech2", {7140, 80}},
        {"imagenet", {1281200, 90}},     // ImageNet-1k
        {"ncf", {4971008, 10}},          // MovieLens interactions
        {"yolov3", {16552, 50}},         // PASCAL VOC
    };
}

std::map<std::string, ApplicationWork> read_application_work(const io::TextInput& in,
                                                             std::map<std::string, ApplicationWork> base,
                                                             std::set<std::string>* named) {
    const io::CsvTable t = io::CsvTable::parse(in);
    const int app = t.require("application"), per_epoch = t.require("samples_per_epoch"), epochs = t.require("epochs");
    std::set<std::string> given;  // a file's own rows name each application once; the built-in ones it replaces
    for (size_t r = 0; r < t.rows(); ++r) {
        const std::string name = t.cell(r, app).text;
        if (name.empty()) throw DataError("expected an application", t.where(r, app));
        if (!given.insert(name).second)
            throw DataError("application '" + name + "' is given twice: which work it has is not for us to guess",
                            t.where(r, app));
        base[name] = {t.positive(r, per_epoch, 1e15), t.positive(r, epochs, 1e6)};
    }
    if (named) *named = given;
    return base;
}

}  // namespace hetsched::sim
