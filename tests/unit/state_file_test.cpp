#include <catch2/catch.hpp>

#include <cstdio>
#include <dirent.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/state_file.hpp>
#include <hetsched/io/text_input.hpp>

using namespace hetsched;

namespace {

std::set<std::string> entries(const std::string& dir) {
    std::set<std::string> out;
    DIR* d = opendir(dir.c_str());
    while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.insert(e->d_name);
    closedir(d);
    return out;
}

}  // namespace

TEST_CASE("replace_durably swaps the file whole and leaves nothing beside it", "[io]") {
    char dir[] = "/tmp/hetsched-state-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/state.yaml";
    {
        io::FileLock lock(path, 1);
        io::replace_durably(path, "first\n");
        io::replace_durably(path, "second\n");
    }
    CHECK(io::read_input(path).text == "second\n");
    CHECK(entries(dir) == std::set<std::string>{"state.yaml", "state.yaml.lock"});
    REQUIRE(chmod(path.c_str(), 0600) == 0);
    io::replace_durably(path, "third\n");
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    std::remove(path.c_str());
    std::remove((path + ".lock").c_str());
    rmdir(dir);
}

TEST_CASE("a replacement dropped before its commit leaves the old file and nothing beside it", "[io]") {
    char dir[] = "/tmp/hetsched-state-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/state.yaml";
    io::replace_durably(path, "old\n");
    {
        io::DurableReplacement r(path, "new\n");
        CHECK(io::read_input(path).text == "old\n");  // written aside, not yet in place
    }
    CHECK(io::read_input(path).text == "old\n");
    CHECK(entries(dir) == std::set<std::string>{"state.yaml"});
    {
        io::DurableReplacement r(path, "new\n");
        r.commit();
    }
    CHECK(io::read_input(path).text == "new\n");
    CHECK(entries(dir) == std::set<std::string>{"state.yaml"});
    std::remove(path.c_str());
    rmdir(dir);
}

TEST_CASE("A second lock on the same state waits, then gives up with try-later", "[io]") {
    char dir[] = "/tmp/hetsched-state-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/state.yaml";
    {
        io::FileLock first(path, 1);
        CHECK_THROWS_AS(io::FileLock(path, 0.05), TryLater);
    }
    { io::FileLock again(path, 0.05); }  // released with the first
    std::remove((path + ".lock").c_str());
    rmdir(dir);
}

TEST_CASE("A state reached through a link is locked and replaced at its target, the link kept", "[io]") {
    char dir[] = "/tmp/hetsched-state-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string path = std::string(dir) + "/state.yaml", link = std::string(dir) + "/current.yaml";
    io::replace_durably(path, "round: 1\n");
    REQUIRE(symlink(path.c_str(), link.c_str()) == 0);
    {
        io::FileLock through_link(link, 1);
        CHECK_THROWS_AS(io::FileLock(path, 0.05), TryLater);  // one lock for both names
        io::replace_durably(link, "round: 2\n");
    }
    struct stat st {};
    REQUIRE(lstat(link.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(io::read_input(path).text == "round: 2\n");
    CHECK(entries(dir) == std::set<std::string>{"state.yaml", "state.yaml.lock", "current.yaml"});
    for (const auto& e : entries(dir)) std::remove((std::string(dir) + "/" + e).c_str());
    rmdir(dir);
}

TEST_CASE("replaces_lock_of: the lock FileLock takes, reached by any name, and only it", "[io]") {
    char dir[] = "/tmp/hetsched-lockname-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string d = dir;
    REQUIRE(mkdir((d + "/data").c_str(), 0755) == 0);
    FILE* f = std::fopen((d + "/data/real.yaml").c_str(), "w");
    REQUIRE(f);
    std::fclose(f);
    REQUIRE(symlink("data/real.yaml", (d + "/s.yaml").c_str()) == 0);
    const std::string state = d + "/s.yaml";
    CHECK(io::lock_path_of(state) == d + "/data/real.yaml.lock");
    // Not made yet, by its name in its folder: the lock of the link's target, through ".." too.
    CHECK(io::replaces_lock_of(d + "/data/real.yaml.lock", state));
    CHECK(io::replaces_lock_of(d + "/data/../data/real.yaml.lock", state));
    CHECK_FALSE(io::replaces_lock_of(d + "/s.yaml.lock", state));  // beside the link: not the lock
    CHECK_FALSE(io::replaces_lock_of(d + "/data/real.yaml", state));
    CHECK_FALSE(io::replaces_lock_of("", state));
    CHECK_FALSE(io::replaces_lock_of("-", state));
    // A link to the lock not made yet.
    REQUIRE(symlink("data/real.yaml.lock", (d + "/lk").c_str()) == 0);
    CHECK(io::replaces_lock_of(d + "/lk", state));
    { io::FileLock lock(state, 1); }  // made now: the same answers
    CHECK(io::replaces_lock_of(d + "/lk", state));
    CHECK(io::replaces_lock_of(d + "/data/real.yaml.lock", state));
    CHECK_FALSE(io::replaces_lock_of(d + "/s.yaml.lock", state));
    for (const char* p : {"/data/real.yaml.lock", "/data/real.yaml", "/s.yaml", "/lk"}) std::remove((d + p).c_str());
    rmdir((d + "/data").c_str());
    rmdir(dir);
}
