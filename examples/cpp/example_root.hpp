// The examples' shared memory: $RINGBUS_ROOT if set, else a directory of their own under
// /dev/shm, removed at the end (empty by then: every node and topic left with its users).
#ifndef RINGBUS_EXAMPLE_ROOT_HPP
#define RINGBUS_EXAMPLE_ROOT_HPP

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

class ExampleRoot {
public:
    ExampleRoot() {
        const char* env = std::getenv("RINGBUS_ROOT");
        if (env != nullptr && env[0] != '\0') {
            path_ = env;
        } else {
            path_ = "/dev/shm/ringbus-example-" + std::to_string(getpid());
            own_ = true;
            setenv("RINGBUS_ROOT", path_.c_str(), 1);  // for the processes it starts
        }
    }
    ~ExampleRoot() {
        if (own_ && rmdir(path_.c_str()) != 0) std::perror(path_.c_str());
    }
    ExampleRoot(const ExampleRoot&) = delete;
    ExampleRoot& operator=(const ExampleRoot&) = delete;

    const std::string& path() const { return path_; }

private:
    std::string path_;
    bool own_ = false;
};

#endif  // RINGBUS_EXAMPLE_ROOT_HPP
