// WallDistanceField's thin cells (buildThinCells) and the triangle list each holds
// (writeCellStarts): cells where the wall folds or is thinner than about two cells (two
// band corners whose closest triangles face apart), in which a query asks the triangles
// themselves instead of the trilinear field (WallDistanceField.h, step 3). Split from
// WallDistanceField.cpp, which builds the field.

#include "sim/sph/WallDistanceField.h"

#include "sim/sph/WallFieldBuild.h"

#include <tbb/blocked_range.h>
#include <tbb/blocked_range2d.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

namespace atrium::sph {

using namespace wallfield;

void WallDistanceField::buildThinCells() {
    const int cx = nx_ - 1, cy = ny_ - 1, cz = nz_ - 1;
    const std::size_t cellCount = std::size_t(cx) * cy * cz;
    const std::size_t sy = std::size_t(nx_), sz = std::size_t(nx_) * ny_;
    const std::size_t cornerOffset[8] = {0, 1, sy, sy + 1, sz, sz + 1, sz + sy, sz + sy + 1};
    const float thinDot = settings_.thinNormalDot;
    const int minBandCorners = thinDot > 1.f ? 1 : 2;
    const float h = cellSize_, invH = 1.f / h;
    const Vec3 o = origin_;

    // 1. Flag: two band corners whose closest triangles face more than the threshold apart.
    // Shortcut for smooth walls: if every corner normal is within half the threshold angle
    // (less a margin for rounding) of the first, no pair exceeds the threshold.
    const bool shortcut = thinDot >= -1.f && thinDot <= 1.f && std::acos(thinDot) > 4e-3f;
    const float cosHalf = shortcut ? std::cos(0.5f * std::acos(thinDot) - 1e-3f) : 2.f;
    const std::uint64_t* keys = nodeKey_.data();
    const Vec3* faceNormals = faceNormals_.data();
    std::atomic<std::size_t> thin{0};
    tbb::parallel_for(tbb::blocked_range2d<int>(0, cz, 0, cy), [&](const tbb::blocked_range2d<int>& r) {
        std::size_t local = 0;
        constexpr int kChunk = 256;
        std::uint8_t bandCorners[kChunk];
        for (int k = r.rows().begin(); k != r.rows().end(); ++k)
            for (int j = r.cols().begin(); j != r.cols().end(); ++j) {
                const std::size_t rowNode = sy * std::size_t(j) + sz * std::size_t(k);
                const std::uint8_t* b00 = nodeBand_.data() + rowNode;
                const std::uint8_t *b01 = b00 + sy, *b10 = b00 + sz, *b11 = b00 + sz + sy;
                std::uint8_t* flags = cellThin_.data() + std::size_t(cx) * (std::size_t(j) + std::size_t(cy) * std::size_t(k));
                for (int c0 = 0; c0 < cx; c0 += kChunk) {
                    const int len = std::min(kChunk, cx - c0);
                    // Band corners per cell (vectorisable); most cells have none.
                    for (int q = 0; q < len; ++q) {
                        const int i = c0 + q;
                        bandCorners[q] = std::uint8_t(b00[i] + b00[i + 1] + b01[i] + b01[i + 1] + b10[i] + b10[i + 1] +
                                                      b11[i] + b11[i + 1]);
                    }
                    for (int q = 0; q < len; ++q) {
                        const int i = c0 + q;
                        if (bandCorners[q] < minBandCorners) {
                            flags[i] = 0;
                            continue;
                        }
                        const std::size_t n0 = rowNode + std::size_t(i);
                        std::uint32_t tris[8];
                        int count = 0;
                        for (std::size_t off : cornerOffset) {
                            const std::uint64_t key = keys[n0 + off];
                            if (key != kNoTriangle) tris[count++] = std::uint32_t(key & 0xffffffffu);
                        }
                        if (shortcut) {
                            // All normals within half the threshold angle of the first one:
                            // no pair can be farther apart than the threshold.
                            const Vec3 ref = faceNormals[tris[0]];
                            bool close = true;
                            for (int u = 1; u < count; ++u) close = close && dot(faceNormals[tris[u]], ref) >= cosHalf;
                            if (close) {
                                flags[i] = 0;
                                continue;
                            }
                        }
                        bool flagged = thinDot > 1.f && count > 0; // validation mode: exact everywhere
                        for (int a = 0; a < count && !flagged; ++a)
                            for (int b = a + 1; b < count && !flagged; ++b)
                                flagged = dot(faceNormals[tris[a]], faceNormals[tris[b]]) < thinDot;
                        flags[i] = flagged ? 1 : 0;
                        local += flagged ? 1 : 0;
                    }
                }
            }
        thin += local;
    });
    thinCells_ = thin.load();
    cellTriangles_.clear();
    if (thinCells_ == 0) {
        writeCellStarts({}, nullptr);
        return;
    }

    // Thin cells in ascending order: per chunk counts, then each chunk writes its part.
    const std::size_t chunks = std::min<std::size_t>(64, cellCount);
    std::vector<std::uint32_t>& thinList = thinList_;
    std::vector<std::uint32_t>& offsetOf = thinOffset_;
    offsetOf.assign(chunks + 1, 0);
    auto chunkBegin = [&](std::size_t q) { return cellCount * q / chunks; };
    tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t q) {
        std::uint32_t count = 0;
        for (std::size_t c = chunkBegin(q); c < chunkBegin(q + 1); ++c) count += cellThin_[c];
        offsetOf[q + 1] = count;
    });
    for (std::size_t q = 0; q < chunks; ++q) offsetOf[q + 1] += offsetOf[q];
    thinList.resize(thinCells_);
    tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t q) {
        std::uint32_t out = offsetOf[q];
        for (std::size_t c = chunkBegin(q); c < chunkBegin(q + 1); ++c)
            if (cellThin_[c]) thinList[out++] = std::uint32_t(c);
    });

    // Triangles bucketed by the kBlock^3-cell block holding the centre of their box
    // (counting sort, so each bucket lists its triangles in ascending order).
    const WallFieldView v = view();
    const std::uint32_t T = v.triangleCount;
    const int bx = (cx + kBlock - 1) / kBlock, by = (cy + kBlock - 1) / kBlock, bz = (cz + kBlock - 1) / kBlock;
    const std::size_t buckets = std::size_t(bx) * by * bz;
    const float blockInv = invH / float(kBlock);
    auto blockIndex = [&](float x, float origin, int last) {
        const float b = (x - origin) * blockInv;
        return b <= 0.f ? 0 : (b >= float(last) ? last : int(b));
    };
    std::vector<std::uint32_t>& bucketStart = bucketStart_;
    std::vector<std::uint32_t>& bucketTris = bucketTris_;
    bucketStart.assign(buckets + 1, 0);
    bucketTris.resize(T);
    Vec3 maxHalf{};
    for (std::uint32_t t = 0; t < T; ++t) {
        const TriangleBox tb = triangleBox(v, t);
        const Vec3 centre = (tb.lo + tb.hi) * 0.5f;
        maxHalf = componentMax(maxHalf, (tb.hi - tb.lo) * 0.5f);
        const std::size_t bucket = std::size_t(blockIndex(centre.x, o.x, bx - 1)) +
                                   std::size_t(bx) * (std::size_t(blockIndex(centre.y, o.y, by - 1)) +
                                                      std::size_t(by) * std::size_t(blockIndex(centre.z, o.z, bz - 1)));
        bucketTris[t] = std::uint32_t(bucket); // bucket of t, for now
        ++bucketStart[bucket + 1];
    }
    for (std::size_t b = 0; b < buckets; ++b) bucketStart[b + 1] += bucketStart[b];
    {
        std::vector<std::uint32_t> cursor(bucketStart.begin(), bucketStart.end() - 1);
        std::vector<std::uint32_t> bucketOf(bucketTris.begin(), bucketTris.end());
        for (std::uint32_t t = 0; t < T; ++t) bucketTris[cursor[bucketOf[t]]++] = t;
    }
    // Margin so that a triangle whose box meets a query box has its centre in the range.
    maxHalf += Vec3{1.f, 1.f, 1.f} * (1e-3f * h);

    // 2. Triangles within r_cell = min_corner |phi| + sqrt(3) h of each thin cell: a point
    // of the cell is at most that far from the mesh, so its closest triangle is listed.
    // Conservative test: the triangle's box overlaps the cell box grown by r_cell.
    // Visit(t) for every such triangle of thin cell number q.
    auto forEachTriangle = [&](std::size_t q, auto&& visit) {
        const std::size_t cell = thinList[q];
        const int i = int(cell % std::size_t(cx)), j = int((cell / std::size_t(cx)) % std::size_t(cy)),
                  k = int(cell / (std::size_t(cx) * std::size_t(cy)));
        const std::size_t n0 = std::size_t(i) + sy * std::size_t(j) + sz * std::size_t(k);
        float minAbs = band_;
        for (std::size_t off : cornerOffset) minAbs = std::min(minAbs, std::fabs(phi_[n0 + off]));
        const float rc = minAbs + kSqrt3 * h;
        const Vec3 clo{o.x + float(i) * h - rc, o.y + float(j) * h - rc, o.z + float(k) * h - rc};
        const Vec3 chi{clo.x + h + 2.f * rc, clo.y + h + 2.f * rc, clo.z + h + 2.f * rc};
        const Vec3 qlo = clo - maxHalf, qhi = chi + maxHalf;
        const int ib0 = blockIndex(qlo.x, o.x, bx - 1), ib1 = blockIndex(qhi.x, o.x, bx - 1);
        const int jb0 = blockIndex(qlo.y, o.y, by - 1), jb1 = blockIndex(qhi.y, o.y, by - 1);
        const int kb0 = blockIndex(qlo.z, o.z, bz - 1), kb1 = blockIndex(qhi.z, o.z, bz - 1);
        for (int kb = kb0; kb <= kb1; ++kb)
            for (int jb = jb0; jb <= jb1; ++jb) {
                const std::size_t rowBucket = std::size_t(bx) * (std::size_t(jb) + std::size_t(by) * std::size_t(kb));
                for (std::uint32_t e = bucketStart[rowBucket + std::size_t(ib0)]; e < bucketStart[rowBucket + std::size_t(ib1) + 1]; ++e) {
                    const std::uint32_t t = bucketTris[e];
                    const TriangleBox tb = triangleBox(v, t);
                    if (tb.lo.x > chi.x || tb.hi.x < clo.x || tb.lo.y > chi.y || tb.hi.y < clo.y || tb.lo.z > chi.z ||
                        tb.hi.z < clo.z)
                        continue;
                    visit(t);
                }
            }
    };
    // Each thin cell's list in ascending order (ties in the exact query go to the lower
    // triangle index) without sorting: mark the triangles in a per-thread bitmap, read the
    // marked words back (clearing them) into per-thread storage; then concatenate.
    struct Local {
        std::vector<std::uint64_t> bits;
        std::vector<std::uint32_t> data;
    };
    tbb::enumerable_thread_specific<Local> locals([T] { return Local{std::vector<std::uint64_t>((T + 63) / 64, 0), {}}; });
    std::vector<std::uint32_t>& listStart = thinOffset_;
    listStart.assign(thinList.size() + 1, 0);
    std::vector<const Local*> owner(thinList.size());
    std::vector<std::uint32_t> begin(thinList.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, thinList.size(), 16), [&](const tbb::blocked_range<std::size_t>& r) {
        Local& local = locals.local();
        std::uint64_t* bits = local.bits.data();
        for (std::size_t q = r.begin(); q != r.end(); ++q) {
            std::uint32_t first = T, last = 0;
            forEachTriangle(q, [&](std::uint32_t t) {
                bits[t / 64] |= std::uint64_t(1) << (t % 64);
                first = std::min(first, t);
                last = std::max(last, t);
            });
            owner[q] = &local;
            begin[q] = std::uint32_t(local.data.size());
            for (std::uint32_t w = first / 64; first <= last && w <= last / 64; ++w)
                for (std::uint64_t word = std::exchange(bits[w], 0); word != 0; word &= word - 1)
                    local.data.push_back(64 * w + std::uint32_t(std::countr_zero(word)));
            listStart[q + 1] = std::uint32_t(local.data.size()) - begin[q];
        }
    });
    std::uint64_t total = 0;
    for (std::size_t q = 0; q < thinList.size(); ++q) {
        total += listStart[q + 1];
        if (total >= kNoNeighbour)
            throw std::runtime_error("WallDistanceField: too many thin-cell triangle entries; use a smaller band");
        listStart[q + 1] = std::uint32_t(total);
    }
    cellTriangles_.resize(total);
    std::uint32_t* list = cellTriangles_.data();
    // Nearest first (see WallFieldView): the exact queries stop at the first triangle
    // whose ball is beyond their best. Ties in index order. Keys below 0 (the centre
    // inside a ball) count as 0, which keeps the order a queries' stop relies on; as
    // non-negative floats they sort as their bit patterns, with the index beneath.
    const WallFieldView withBalls = view();
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, thinList.size(), 16), [&](const tbb::blocked_range<std::size_t>& r) {
        std::vector<std::uint64_t> keyed;
        for (std::size_t q = r.begin(); q != r.end(); ++q) {
            const std::uint32_t* from = owner[q]->data.data() + begin[q];
            const std::uint32_t count = listStart[q + 1] - listStart[q];
            const Vec3 centre = withBalls.cellCentre(thinList[q]);
            keyed.resize(count);
            for (std::uint32_t e = 0; e < count; ++e) {
                const float* ball = &triangleBalls_[4 * std::size_t(from[e])];
                const float key = std::max(length(centre - Vec3{ball[0], ball[1], ball[2]}) - ball[3], 0.f);
                keyed[e] = (std::uint64_t(std::bit_cast<std::uint32_t>(key)) << 32) | from[e];
            }
            std::sort(keyed.begin(), keyed.end());
            for (std::uint32_t e = 0; e < count; ++e) list[listStart[q] + e] = std::uint32_t(keyed[e]);
        }
    });
    writeCellStarts(thinList, listStart.data());
}

void WallDistanceField::writeCellStarts(const std::vector<std::uint32_t>& thin, const std::uint32_t* listStart) {
    std::uint32_t* start = cellTriangleStart_.data();
    if (thin.empty()) {
        // All zero, as the view requires; only the entries written by the last build
        // that had thin cells need clearing (usually none).
        std::fill(start, start + cellStartDirtyEnd_, 0u);
        cellStartDirtyEnd_ = 0;
        return;
    }
    // Cells up to thin cell q start at its list, cells past the last one at the end.
    // Entries past this grid left by an earlier build are cleared.
    const std::size_t used = cellCount_ + 1;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, thin.size() + 1, 64), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t q = r.begin(); q != r.end(); ++q) {
            const std::size_t from = q == 0 ? 0 : std::size_t(thin[q - 1]) + 1;
            const std::size_t to = q == thin.size() ? used : std::size_t(thin[q]) + 1;
            std::fill(start + from, start + to, listStart[q]);
        }
    });
    if (cellStartDirtyEnd_ > used) std::fill(start + used, start + cellStartDirtyEnd_, 0u);
    cellStartDirtyEnd_ = used;
}

} // namespace atrium::sph
