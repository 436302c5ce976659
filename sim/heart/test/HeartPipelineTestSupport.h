#pragma once
// Shared by the heart pipeline tests (HeartPipelineTest.cpp, MeshSeriesTest.cpp): the
// coarse phantom and its phase meshes, settings without a cache, and small checks.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/sph/TriangleMesh.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace atrium::heart::test {

/// The adult preset, coarse: 2 mm voxels and 6 phases (t = 0, 1/6, ..., 5/6; its
/// timing() on that grid: ejection from 1/6 to end systole at 1/2 (phase 3), isovolumic
/// relaxation to 2/3, rapid filling to 5/6, atrial contraction to 1).
inline heart::PhantomParameters coarsePhantom() {
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 2.0;
    p.phases = 6;
    return p;
}

/// Sub-frames for the coarse phantom. The phantom's wall moves fast (the apex rises
/// about 12 mm between end systole and mid filling), and with 6 phases a phase interval
/// is 1/6 of the cycle, rapid filling a single one: the longest half-way displacement is
/// about 18 mm, so the default 8 sub-frames would step 4.5 mm (printed by
/// PhantomToMovingHeart); 40 keep the step below half of a 2 mm particle spacing (about
/// 0.9 mm).
inline constexpr int kCoarseSubframes = 40;

inline PipelineSettings uncachedSettings() {
    PipelineSettings s;
    s.cacheDirectory.clear();
    s.interpolation.subframes = kCoarseSubframes;
    return s;
}

/// The coarse phantom's phase meshes as the pipeline extracts them (same isovalue and
/// settings), without the interpolation: the mesh-series tests need meshes only.
inline const std::vector<sph::TriangleMesh>& coarsePhaseMeshes() {
    static const std::vector<sph::TriangleMesh> meshes = [] {
        const heart::HeartPhantom phantom(coarsePhantom());
        const PipelineSettings s = uncachedSettings();
        heart::ExtractionSettings e = s.extraction;
        e.noiseBoxMm = s.noiseBoxMm;
        std::vector<sph::TriangleMesh> out;
        for (int k = 0; k < phantom.parameters().phases; ++k) {
            const heart::Volume v = phantom.generatePhase(double(k) / phantom.parameters().phases);
            if (k == 0) e.isovalue = heart::suggestIsovalue(v);
            out.push_back(heart::extractSurface(v, e));
        }
        return out;
    }();
    return meshes;
}

inline void expectSameMesh(const sph::TriangleMesh& a, const sph::TriangleMesh& b, const std::string& what) {
    ASSERT_EQ(a.vertices.size(), b.vertices.size()) << what;
    ASSERT_EQ(a.triangles, b.triangles) << what;
    for (std::size_t i = 0; i < a.vertices.size(); ++i) {
        ASSERT_EQ(a.vertices[i].x, b.vertices[i].x) << what << " vertex " << i;
        ASSERT_EQ(a.vertices[i].y, b.vertices[i].y) << what << " vertex " << i;
        ASSERT_EQ(a.vertices[i].z, b.vertices[i].z) << what << " vertex " << i;
    }
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline void writeText(const std::filesystem::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
}

} // namespace atrium::heart::test
