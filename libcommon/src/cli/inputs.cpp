#include <hetsched/cli/inputs.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::cli {

catalog::GpuCatalog load_catalog(const std::string& name_or_path) {
    if (!catalog::is_catalog_file(name_or_path)) {
        try {
            return catalog::named_catalog(name_or_path);
        } catch (const UsageError& e) {  // a file of that name: a catalog file is named with a '/' or a '.'
            struct stat st {};
            if (::stat(name_or_path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
                throw UsageError(std::string(e.what()) + "; a file '" + name_or_path +
                                 "' is there: name it ./" + name_or_path + " to read it as a catalog");
            throw;
        }
    }
    return catalog::parse_catalog(io::read_input(name_or_path));
}

namespace {
/// Whether `word` is one of --compile's values (model, loss, model+loss, none...).
bool compile_value(const std::string& word) {
    model::Training scratch;
    try {
        model::parse_compile(word, scratch);
    } catch (const DataError&) {
        return false;
    }
    return true;
}
}  // namespace

std::optional<io::TextInput> job_input(const IoOptions& io, const model::JobOptions& o) {
    if (model::flags_describe_job(o) && !io.input_given) return std::nullopt;
    // A bare --compile (CLI11 gives it "true") takes no value from the next word: `--compile model`
    // leaves 'model' as the input file. Where no such file is, that is what was meant.
    struct stat st {};
    if (o.compile == "true" && io.input_given && compile_value(io.input) && ::stat(io.input.c_str(), &st) != 0)
        throw UsageError("--compile takes its value after '=' (--compile=" + io.input + "): '" + io.input +
                         "' was read as the input file, and there is none");
    return io::read_input(io.input);
}

std::optional<io::TextInput> optional_input(const std::string& path) {
    if (path.empty()) return std::nullopt;
    return io::read_input(path);
}

namespace {
/// The file `path` names, in `st` (device and inode tell it apart): "-" is standard input's, which
/// /dev/stdin reaches too. False where it cannot be looked at (reported when it is read).
bool identity(const std::string& path, struct stat& st) {
    return path == "-" ? ::fstat(STDIN_FILENO, &st) == 0 : !path.empty() && ::stat(path.c_str(), &st) == 0;
}
}  // namespace

void check_distinct_inputs(const std::vector<std::string>& paths, const std::string& what) {
    for (size_t i = 0; i < paths.size(); ++i)
        for (size_t j = i + 1; j < paths.size(); ++j) {
            if (paths[i] == "-" && paths[j] == "-")
                throw UsageError("standard input can be read once: two " + what + " name '-'");
            struct stat a {}, b {};
            if (identity(paths[i], a) && identity(paths[j], b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                throw UsageError(paths[i] + " and " + paths[j] + " are one file: its rows would be read, and counted, twice");
        }
}

void check_outputs_spare_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    for (const NamedPath& out : outputs) {
        struct stat o {};
        // Only a regular file can be lost this way (a terminal or a pipe is not replaced by a rename).
        if (out.path.empty() || out.path == "-" || ::stat(out.path.c_str(), &o) != 0 || !S_ISREG(o.st_mode)) continue;
        for (const NamedPath& in : inputs) {
            struct stat i {};
            if (identity(in.path, i) && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
                throw UsageError(out.flag + " " + out.path + " is the " + in.flag + " input" +
                                 (in.path == out.path ? "" : in.path == "-" ? " (standard input)" : " (" + in.path + ")") +
                                 ": writing it would replace the input with the result; name another file");
        }
    }
}

}  // namespace hetsched::cli
