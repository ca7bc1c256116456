/// Runs a fuzz target over saved inputs without libFuzzer, so that the committed corpus replays as a
/// regression test in every build (gcc or clang, with or without sanitizers).
/// Usage: <target>_replay FILE_OR_DIR...; exits nonzero when an input cannot be read.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool replay(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::cerr << "replay: cannot open " << file << "\n";
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    long count = 0;
    bool ok = true;
    for (int i = 1; i < argc; ++i) {
        const fs::path p(argv[i]);
        std::vector<fs::path> files;
        if (fs::is_directory(p)) {
            for (const auto& e : fs::recursive_directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.push_back(p);
        }
        for (const auto& f : files) {
            ok = replay(f) && ok;
            ++count;
        }
    }
    std::cout << "replayed " << count << " inputs\n";
    return ok && count > 0 ? 0 : 1;
}
