// Writes the sample lecture's heart sounds: a synthetic phonocardiogram of the first
// and second heart sounds (S1, S2) at 72 beats per minute, 4 beats, as 16-bit mono PCM
// WAV at 16 kHz. Made here, from this code, so that the lecture's media are the
// project's own: S1 (closure of the mitral and tricuspid valves) as two overlapping
// damped low tones (45 and 70 Hz, about 110 ms), S2 (closure of the aortic and pulmonary
// valves) shorter and higher (75 and 110 Hz, about 80 ms) 0.30 s later, with a
// deterministic hint of noise. The output is the same on every machine.
//
// usage: heart_sounds OUT.wav

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numbers>
#include <vector>

namespace {

constexpr int kRate = 16000;

/// A damped tone burst starting at t0 (s): sin(2 pi f t) e^(-t / tau) under a short attack.
double burst(double t, double t0, double f, double tau, double amplitude) {
    const double u = t - t0;
    if (u < 0.0 || u > 8.0 * tau) return 0.0;
    const double attack = 1.0 - std::exp(-u / 0.004);
    return amplitude * attack * std::exp(-u / tau) * std::sin(2.0 * std::numbers::pi * f * u);
}

void put16(std::ofstream& out, std::uint16_t v) { out.put(char(v & 0xff)).put(char(v >> 8)); }
void put32(std::ofstream& out, std::uint32_t v) { put16(out, std::uint16_t(v & 0xffff)), put16(out, std::uint16_t(v >> 16)); }

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: heart_sounds OUT.wav\n";
        return 1;
    }
    const double beat = 60.0 / 72.0;
    const int beats = 4;
    const std::size_t n = std::size_t(beats * beat * kRate);
    std::vector<std::int16_t> samples(n);
    std::uint32_t noise = 12345u; // a fixed linear congruential sequence: the same bytes everywhere
    for (std::size_t i = 0; i < n; ++i) {
        const double t = double(i) / kRate;
        double v = 0.0;
        for (int b = 0; b < beats; ++b) {
            const double s1 = 0.05 + b * beat, s2 = s1 + 0.30;
            v += burst(t, s1, 45.0, 0.030, 0.55) + burst(t, s1 + 0.012, 70.0, 0.022, 0.35);
            v += burst(t, s2, 75.0, 0.018, 0.45) + burst(t, s2 + 0.008, 110.0, 0.012, 0.25);
        }
        noise = noise * 1664525u + 1013904223u;
        v += 0.004 * (double(noise >> 8) / double(1u << 24) - 0.5);
        samples[i] = std::int16_t(std::lround(std::clamp(v, -1.0, 1.0) * 32000.0));
    }
    std::ofstream out(argv[1], std::ios::binary);
    const std::uint32_t bytes = std::uint32_t(n * 2);
    out.write("RIFF", 4);
    put32(out, 36 + bytes);
    out.write("WAVEfmt ", 8);
    put32(out, 16);
    put16(out, 1); // PCM
    put16(out, 1); // mono
    put32(out, kRate);
    put32(out, kRate * 2);
    put16(out, 2);
    put16(out, 16);
    out.write("data", 4);
    put32(out, bytes);
    for (auto s : samples) put16(out, std::uint16_t(s));
    out.close();
    if (!out) {
        std::cerr << "heart_sounds: cannot write " << argv[1] << "\n";
        return 4;
    }
    return 0;
}
