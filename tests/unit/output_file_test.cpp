#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/io/text_input.hpp>

using namespace hetsched;

TEST_CASE("write_output replaces the file whole", "[io]") {
    char dir[] = "/tmp/hetsched-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/out.txt";
    io::write_output(path, "first\n");
    io::write_output(path, "second\n");
    CHECK(io::read_input(path).text == "second\n");
    io::write_output(path, "third\n", true);  // flushed to disk, renamed over it as well
    CHECK(io::read_input(path).text == "third\n");
    std::remove(path.c_str());
    rmdir(dir);
}

TEST_CASE("write_output and read_input report missing places", "[io]") {
    CHECK_THROWS_AS(io::write_output("/nonexistent-dir/x.txt", "x"), OutputError);
    CHECK_THROWS_AS(io::read_input("/nonexistent-dir/x.txt"), InputMissing);
}

TEST_CASE("write_output writes into a FIFO or device instead of replacing it", "[io]") {
    char dir[] = "/tmp/hetsched-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string fifo = std::string(dir) + "/pipe";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    std::string got;
    std::thread reader([&] {
        std::ifstream in(fifo);
        std::stringstream ss;
        ss << in.rdbuf();
        got = ss.str();
    });
    io::write_output(fifo, "through the pipe\n", true);  // flushed to disk: a pipe has none, and passes
    reader.join();
    CHECK(got == "through the pipe\n");
    struct stat st {};
    REQUIRE(stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    std::remove(fifo.c_str());
    rmdir(dir);
}

TEST_CASE("write_output writes through a symbolic link, which stays a link", "[io]") {
    char dir[] = "/tmp/hetsched-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string target = std::string(dir) + "/state.yaml", link = std::string(dir) + "/current.yaml";
    io::write_output(target, "old\n");
    REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
    io::write_output(link, "new\n");
    struct stat st {};
    REQUIRE(lstat(link.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(io::read_input(target).text == "new\n");
    std::remove(link.c_str());
    std::remove(target.c_str());
    rmdir(dir);
}

TEST_CASE("write_outputs fails on a device before standard output has any of the result", "[io]") {
    if (access("/dev/full", W_OK) != 0) return;
    char path[] = "/tmp/hetsched-stdout-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    std::fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    REQUIRE(dup2(fd, STDOUT_FILENO) >= 0);
    bool failed = false;  // checked once stdout is back: Catch writes its failures there
    try {
        io::write_outputs({{"-", "summary\n"}, {"/dev/full", "per-job rows\n"}});
    } catch (const IoError&) {
        failed = true;
    }
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(fd);
    CHECK(failed);
    CHECK(io::read_input(path).text.empty());
    std::remove(path);
}

TEST_CASE("write_output names the temporary's failure when the file exists", "[io]") {
    // /proc takes no new files: the file is there, a temporary beside it cannot be.
    if (access("/proc/version", F_OK) != 0) return;
    CHECK_THROWS_WITH(io::write_output("/proc/version", "x"),
                      Catch::StartsWith("cannot replace '/proc/version': no temporary file can be made beside it ("));
    CHECK_THROWS_WITH(io::write_output("/nonexistent-dir/x.txt", "x"),
                      "cannot create '/nonexistent-dir/x.txt': No such file or directory");
}
