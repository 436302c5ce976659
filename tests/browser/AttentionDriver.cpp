// A remote lecturer for the browser tests: joins URL with the join code and the lecturer
// secret, prints "ready" once it may drive, then for each line "hold" or "free" on stdin
// drives the attention mode and prints "held" or "freed". Exits at the end of input.
// Usage: attention_driver URL CODE SECRET
#include "app/transport/SessionClient.h"

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

using namespace atrium;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: attention_driver URL CODE SECRET\n";
        return 1;
    }
    transport::ClientOptions o;
    o.url = argv[1];
    o.code = argv[2];
    o.name = "attention driver";
    o.secret = argv[3];
    o.allowSelfSigned = true; // the tests' lecture may run over TLS with a classroom certificate
    transport::SessionClient client(o);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (!client.maySteer() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!client.maySteer()) {
        std::cerr << "attention_driver: not authenticated as the lecturer within 15 s\n";
        return 3;
    }
    std::cout << "ready" << std::endl;
    for (std::string line; std::getline(std::cin, line);) {
        const bool hold = line == "hold";
        if (!hold && line != "free") continue;
        const session::Attention mode = hold ? session::Attention::Hold : session::Attention::Free;
        if (!client.drive(session::msg::AttentionMode{0, mode})) {
            std::cerr << "attention_driver: the drive was refused\n";
            return 3;
        }
        while (client.state().attention != mode) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::cout << (hold ? "held" : "freed") << std::endl;
    }
    return 0;
}
