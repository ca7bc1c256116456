#pragma once
/// Typed errors the library throws and the tools map to exit codes (sysexits), so that the library
/// never prints or exits and every failure reaches the user as `tool: FILE:LINE:COL: message`.
#include <stdexcept>
#include <string>

namespace hetsched {

/// Exit statuses shared by every tool (DESIGN §3).
enum class Exit : int {
    ok = 0,
    negative = 1,      ///< ran fine, but the answer is no (infeasible, does not fit)
    usage = 64,
    data = 65,
    no_input = 66,
    internal = 70,
    cant_create = 73,
    io = 74,
    tempfail = 75,     ///< try again later: a lock held too long, a solver out of time
    config = 78,
};

/// Where in an input a problem sits; line 0 means "the whole file", col 0 "the whole line".
struct SourcePos {
    std::string file;
    int line = 0;
    int col = 0;
};

/// Base of every error the library throws: a message, an exit code and, when known, a position.
class Error : public std::runtime_error {
public:
    Error(Exit code, std::string message, SourcePos pos = {})
        : std::runtime_error(std::move(message)), code_(code), pos_(std::move(pos)) {}
    Exit code() const { return code_; }
    const SourcePos& pos() const { return pos_; }

private:
    Exit code_;
    SourcePos pos_;
};

/// The request is well-formed but has no answer: nothing fits, no plan meets the target (exit 1).
struct Infeasible : Error {
    explicit Infeasible(std::string message) : Error(Exit::negative, std::move(message)) {}
};
/// Bad options or option values (exit 64).
struct UsageError : Error {
    explicit UsageError(std::string message) : Error(Exit::usage, std::move(message)) {}
};
/// Input data that is malformed or impossible (exit 65).
struct DataError : Error {
    DataError(std::string message, SourcePos pos = {}) : Error(Exit::data, std::move(message), std::move(pos)) {}
};
/// An input file that cannot be opened (exit 66).
struct InputMissing : Error {
    explicit InputMissing(std::string message) : Error(Exit::no_input, std::move(message)) {}
};
/// An output that cannot be created (exit 73).
struct OutputError : Error {
    explicit OutputError(std::string message) : Error(Exit::cant_create, std::move(message)) {}
};
/// A read or write that failed part-way (exit 74).
struct IoError : Error {
    explicit IoError(std::string message) : Error(Exit::io, std::move(message)) {}
};
/// Not now: a lock another run holds past the wait, a solver that ran out of time (exit 75).
struct TryLater : Error {
    explicit TryLater(std::string message) : Error(Exit::tempfail, std::move(message)) {}
};
/// A catalog or configuration file that is unusable (exit 78).
struct ConfigError : Error {
    ConfigError(std::string message, SourcePos pos = {}) : Error(Exit::config, std::move(message), std::move(pos)) {}
};

/// `text` with control bytes written as \xNN, so that input echoed in a message cannot drive a terminal.
std::string escape_control(const std::string& text);

/// "FILE:LINE:COL: message" (parts omitted when unknown, control bytes escaped), without the tool prefix.
std::string describe(const Error& e);

}  // namespace hetsched
