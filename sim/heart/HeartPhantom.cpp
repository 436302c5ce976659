#include "sim/heart/HeartPhantom.h"

#include "sim/heart/PhantomCycle.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace atrium::heart {

namespace {

using detail::curveAt;
using detail::Keyframe;
using detail::kLaReservoirShare;
using detail::laCurveFor;
using detail::lvCurveFor;
using detail::timingFor;
using detail::wrapPhase;

constexpr double kPi = std::numbers::pi;
constexpr double kStenoticValveMm = 3.0; ///< thickness of a stenotic aortic valve's leaflets

struct D3 {
    double x = 0, y = 0, z = 0;
};
D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double norm(D3 a) { return std::sqrt(dot(a, a)); }
D3 minOf(D3 a, D3 b) { return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)}; }
D3 maxOf(D3 a, D3 b) { return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}; }
sph::Vec3 toVec(D3 a) { return {static_cast<float>(a.x), static_cast<float>(a.y), static_cast<float>(a.z)}; }

// ---------------------------------------------------------------------------------------
// Fixed layout of one parameter set (everything but the time-varying shapes), mm.

struct Layout {
    double s = 1;             // size scale (EDV / 120 ml)^(1/3)
    double edv = 0;           // mm^3
    double ef = 0;
    double ringRadius = 0;    // LV cavity radius at the base plane (fixed annulus)
    double lengthRef = 0;     // apex-base length at EDV before the emptying limit
    double baseCap = 4;       // tissue between LV cavity and the atrium floor
    double laClearance = 5.5; // LA blood keeps this distance from LV blood (but the neck)
    double aoClearance = 5.5; // LA blood keeps this distance from aortic blood
    double laWall = 2.5, aoWall = 2.0, rvWall = 4.0;
    double mitralRadius = 0, aorticRadius = 0; // the open orifices (aortic: the annulus)
    double aorticOrificeRadius = 0;            // below aorticRadius: a stenotic valve
    D3 mitralCenter, aorticCenter;
    double laMin = 0, laGain = 0; // mm^3
    CycleTiming timing;
    std::vector<Keyframe> lvCurve, laCurve;
    std::vector<D3> aorta;          // centreline; aorta[0] is the aortic valve's centre
    std::vector<double> aortaRadii; // the tube's radius at each centreline point
    double wall0 = 8;   // LV wall at end diastole
    double areaED = 0;  // LV cavity lateral area at end diastole
    double voxel = 1;
    bool rightHeart = false;
    bool rightHeartShell = false;
    // The display-only right heart (rightHeartShell), at end diastole.
    D3 rvCenter, rvSemi;
    double rvEf = 0.58;
    D3 raCenterXY;      // x and y of the right atrium's centre (its floor is fixed, as the LA's)
    D3 tricuspid;       // the tricuspid neck's axis (vertical), at the base plane
    double tricuspidRadius = 0;
    std::vector<D3> pulmonary;           // centreline from inside the RV through the pulmonary trunk
    std::vector<double> pulmonaryRadii; // one per centreline point (a tube of one radius)
};

struct LvShape {
    double length = 0, p = 0, q = 0, ring = 0;
    double rho2(double u) const { return std::max(0.0, p * u + q * u * u); }
    double maxRadius() const {
        if (q < 0.0 && p / (-2.0 * q) < 1.0) return std::sqrt(p * p / (-4.0 * q));
        return ring;
    }
};

/// Quadric-of-revolution cavity of volume v (mm^3): radius^2 = p u + q u^2 along the
/// axis, u = 0 at the apex, u = 1 at the base plane where the radius is the ring radius.
LvShape lvShapeFor(const Layout& layout, double v) {
    LvShape shape;
    shape.ring = layout.ringRadius;
    const double r2 = shape.ring * shape.ring;
    const double byShortening = layout.lengthRef * std::pow(v / layout.edv, 0.25);
    const double byShape = v / (0.4 * kPi * r2); // keeps v / (pi L R^2) >= 0.4 (so p > 0)
    shape.length = std::pow(std::pow(byShortening, -6.0) + std::pow(byShape, -6.0), -1.0 / 6.0);
    const double ratio = v / (kPi * shape.length * r2);
    shape.p = 2.0 * r2 * (3.0 * ratio - 1.0);
    shape.q = r2 - shape.p;
    return shape;
}

constexpr int kProfileSegments = 160;

/// Profile points (r, z) from apex (r = 0) to the ring at z = 0; u = s^2 spaces the
/// points evenly in radius near the rounded apex.
std::vector<std::pair<double, double>> profileOf(const LvShape& shape) {
    std::vector<std::pair<double, double>> pts(kProfileSegments + 1);
    for (int n = 0; n <= kProfileSegments; ++n) {
        const double s = static_cast<double>(n) / kProfileSegments;
        const double u = s * s;
        pts[static_cast<std::size_t>(n)] = {std::sqrt(shape.rho2(u)), -shape.length * (1.0 - u)};
    }
    pts.back().first = shape.ring;
    return pts;
}

double lateralArea(const LvShape& shape) {
    const auto pts = profileOf(shape);
    double area = 0;
    for (std::size_t n = 1; n < pts.size(); ++n) {
        const double dr = pts[n].first - pts[n - 1].first, dz = pts[n].second - pts[n - 1].second;
        area += kPi * (pts[n].first + pts[n - 1].first) * std::sqrt(dr * dr + dz * dz);
    }
    return area;
}

double laVolumeAt(const Layout& l, double phase01);
double strokeFraction(const Layout& l, double phase01) { return curveAt(l.lvCurve, phase01); }

/// The ascending aorta goes on into an arch: it narrows a little from the ascending
/// aorta to the arch's radius, rises anteriorly as before, then turns over the
/// left atrium towards posterior and the left (+x) in a half circle and ends in a
/// short descending aorta behind the atrium. The arch clears the atrium at its largest by the
/// aortic clearance, so the atrium keeps its shape.
void addAorticArch(Layout& l) {
    const double archRadius = 0.9 * l.aortaRadii.back(); // adult: 25 mm across after 28
    const double bend = 38.0 * l.s;       // radius of the arch's centreline
    const double leftward = 18.0 * l.s;   // the descending aorta lies this far to the left
    std::fill(l.aortaRadii.begin() + 1, l.aortaRadii.end(), archRadius);
    const D3 start = l.aorta.back();
    constexpr int kArcSegments = 12;
    for (int n = 1; n <= kArcSegments; ++n) {
        const double a = kPi * n / kArcSegments; // 0 at the start (anterior), pi posterior
        l.aorta.push_back({leftward * n / kArcSegments, start.y + bend * (1.0 - std::cos(a)), start.z + bend * std::sin(a)});
        l.aortaRadii.push_back(archRadius);
    }
    l.aorta.push_back(l.aorta.back() - D3{0, 0, 22.0 * l.s});
    l.aortaRadii.push_back(archRadius);
}

/// The right heart shown around the left one (rightHeartShell): a right ventricle
/// wrapped round the septum on the -x side, the right atrium above it joined through a
/// tricuspid neck, and the pulmonary trunk rising from the ventricle's outflow tract in
/// front of the aortic root, to the left. Display only: the blood never sees it.
void addRightHeartShell(Layout& l) {
    l.rightHeartShell = true;
    const LvShape ed = lvShapeFor(l, l.edv);
    const double rho = ed.maxRadius(), s = l.s;
    l.rvCenter = {-(0.75 * rho + 6.0 * s), -0.25 * rho, -0.4 * ed.length};
    l.rvSemi = {0.9 * rho + 14.0 * s, 1.15 * rho + 3.0 * s, 0.55 * ed.length};
    const double laMax = laVolumeAt(l, l.timing.rapidFilling);
    const double laRadiusMax = std::cbrt(laMax / (4.0 / 3.0 * kPi * 1.25 * 0.9));
    const double raRadiusMax = std::cbrt(laMax / (4.0 / 3.0 * kPi * 1.1));
    l.raCenterXY = {-(1.25 * laRadiusMax + l.laClearance + raRadiusMax) + 4.0 * s, l.mitralCenter.y - 2.0 * s, 0};
    l.tricuspid = {-(l.ringRadius + l.wall0 + 8.0 * s), -0.1 * rho, 0};
    l.tricuspidRadius = 11.0 * s;
    l.pulmonary = {D3{-26, -28, -16} * s, D3{-18, -44, 6} * s, D3{-2, -52, 30} * s, D3{14, -42, 50} * s};
    l.pulmonaryRadii.assign(l.pulmonary.size(), 12.0 * s); // 24 mm across at 120 ml
}

Layout layoutFor(const PhantomParameters& params) {
    Layout l;
    l.edv = params.endDiastolicVolumeMl * 1000.0;
    l.ef = params.ejectionFraction;
    l.s = std::cbrt(params.endDiastolicVolumeMl / 120.0);
    // Valves side by side on the y axis inside the base ring, 4 mm of tissue between
    // them (the aorto-mitral curtain), 1.5 mm between each and the ring's edge.
    const double margin = 1.5, gap = 4.0;
    l.aorticRadius = 0.5 * params.aorticAnnulusMm;
    l.aorticOrificeRadius = params.aorticValveAreaCm2 ? std::sqrt(*params.aorticValveAreaCm2 * 100.0 / kPi) : l.aorticRadius;
    l.mitralRadius = std::sqrt(params.mitralValveAreaCm2 * 100.0 / kPi);
    l.ringRadius = l.aorticRadius + l.mitralRadius + gap / 2.0 + margin;
    l.lengthRef = 80.0 * l.s;
    l.mitralCenter = {0, l.ringRadius - margin - l.mitralRadius, 0};
    l.aorticCenter = {0, -(l.ringRadius - margin - l.aorticRadius), 0};
    l.timing = timingFor(params.heartRateBpm, params.phases);
    l.lvCurve = lvCurveFor(l.timing);
    l.laCurve = laCurveFor(l.timing);
    const double sv = l.edv * l.ef;
    l.laMin = 0.18 * l.edv;
    l.laGain = kLaReservoirShare * sv;
    // The root widens from the annulus to the ascending aorta as it rises, then the
    // ascending aorta leans anteriorly.
    const double rise = l.baseCap + 8.0 * l.s;
    const D3 tilt = D3{0, -0.45, 1.0} * (1.0 / std::sqrt(0.45 * 0.45 + 1.0));
    l.aorta = {l.aorticCenter, l.aorticCenter + D3{0, 0, rise}};
    l.aorta.push_back(l.aorta[1] + tilt * (30.0 * l.s));
    const double ascending = 0.5 * params.ascendingAortaMm;
    l.aortaRadii = {l.aorticRadius, ascending, ascending};
    if (params.aorticArch) addAorticArch(l);
    l.wall0 = params.wallThicknessMm;
    l.areaED = lateralArea(lvShapeFor(l, l.edv));
    l.voxel = params.voxelSizeMm;
    l.rightHeart = params.rightHeart;
    if (params.rightHeartShell) addRightHeartShell(l);
    return l;
}

double lvVolumeAt(const Layout& l, double phase01) {
    return l.edv * ((1.0 - l.ef) + l.ef * strokeFraction(l, phase01));
}

double laVolumeAt(const Layout& l, double phase01) { return l.laMin + l.laGain * curveAt(l.laCurve, phase01); }

/// LA ellipsoid: semi-axes 1.25 : 0.9 : 1 (x : y : z), posterior to the mitral valve,
/// its floor at the LA clearance above the base plane.
EllipsoidShape laShapeAt(const Layout& l, double phase01) {
    const double v = laVolumeAt(l, phase01);
    const double radius = std::cbrt(v / (4.0 / 3.0 * kPi * 1.25 * 0.9));
    const D3 center{l.mitralCenter.x, l.mitralCenter.y + 6.0 * l.s, l.laClearance + radius};
    return {toVec(center), toVec(D3{1.25 * radius, 0.9 * radius, radius})};
}

double wallAt(const Layout& l, const LvShape& shape) {
    return std::clamp(l.wall0 * l.areaED / lateralArea(shape), l.wall0, 2.0 * l.wall0);
}

/// Ellipsoid distance estimate (exact on the surface, a good bound near it).
double ellipsoidDistance(D3 p, D3 semi) {
    const D3 a{p.x / semi.x, p.y / semi.y, p.z / semi.z};
    const D3 b{p.x / (semi.x * semi.x), p.y / (semi.y * semi.y), p.z / (semi.z * semi.z)};
    const double k0 = norm(a), k1 = norm(b);
    if (k1 <= 0.0) return -std::min({semi.x, semi.y, semi.z});
    return k0 * (k0 - 1.0) / k1;
}

/// Signed distance to a tube around a polyline whose radius varies linearly along each
/// segment (exact for a constant radius; a close estimate for a gentle taper).
double tubeDistance(D3 p, const std::vector<D3>& line, const std::vector<double>& radii) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t n = 1; n < line.size(); ++n) {
        const D3 a = line[n - 1], ab = line[n] - a;
        const double t = std::clamp(dot(p - a, ab) / dot(ab, ab), 0.0, 1.0);
        best = std::min(best, norm(p - (a + ab * t)) - (radii[n - 1] + (radii[n] - radii[n - 1]) * t));
    }
    return best;
}

double segmentDistance2D(double px, double pz, double ax, double az, double bx, double bz) {
    const double ux = bx - ax, uz = bz - az;
    const double len2 = ux * ux + uz * uz;
    const double t = len2 > 0.0 ? std::clamp(((px - ax) * ux + (pz - az) * uz) / len2, 0.0, 1.0) : 0.0;
    const double dx = px - (ax + t * ux), dz = pz - (az + t * uz);
    return std::sqrt(dx * dx + dz * dz);
}

// ---------------------------------------------------------------------------------------
// The heart at one phase, as signed distance functions (negative inside), mm.

struct Distances {
    double lv, la, ao, rv;
    double blood, solid;
};

/// The display-only right heart's cavities (rightHeartShell), mm.
struct RightHeartDistances {
    double ra, rv, pulmonary;
    double cavity; ///< their union, kept clear of the left heart's blood
};

class PhaseGeometry {
public:
    PhaseGeometry(const Layout& layout, double phase01, bool withTable) : l_(layout) {
        shape_ = lvShapeFor(l_, lvVolumeAt(l_, phase01));
        profile_ = profileOf(shape_);
        wall_ = wallAt(l_, shape_);
        const EllipsoidShape la = laShapeAt(l_, phase01);
        laCenter_ = {la.center.x, la.center.y, la.center.z};
        laSemi_ = {la.semiAxes.x, la.semiAxes.y, la.semiAxes.z};
        neckTop_ = laCenter_.z;
        far_ = std::max({wall_, l_.laClearance, l_.baseCap}) + 2.0 * l_.voxel + 1.0;
        if (l_.rightHeart) {
            const LvShape ed = lvShapeFor(l_, l_.edv);
            const double rho = ed.maxRadius();
            const double scale = std::cbrt(lvVolumeAt(l_, phase01) / l_.edv);
            rvCenter_ = {-(0.75 * rho + 3.0 * l_.s), 0.0, -0.45 * ed.length};
            rvSemi_ = D3{0.9 * rho + 6.0 * l_.s, 1.1 * rho + 4.0 * l_.s, 0.45 * ed.length} * scale;
        }
        if (l_.rightHeartShell) {
            const double f = strokeFraction(l_, phase01);
            rvCenter_ = l_.rvCenter;
            rvSemi_ = l_.rvSemi * std::cbrt(1.0 - l_.rvEf * (1.0 - f));
            // The right atrium: the left one's volume curve, semi-axes 1 : 1.1 : 1.
            const double raRadius = std::cbrt(laVolumeAt(l_, phase01) / (4.0 / 3.0 * kPi * 1.1));
            raCenter_ = {l_.raCenterXY.x, l_.raCenterXY.y, l_.laClearance + raRadius};
            raSemi_ = D3{raRadius, 1.1 * raRadius, raRadius};
        }
        if (withTable) buildTable();
        computeBounds();
    }

    double wall() const { return wall_; }
    D3 rightAtriumCenter() const { return raCenter_; }
    D3 rightVentricleFarSide() const { return rvCenter_ - D3{0.75 * rvSemi_.x, 0, 0}; }
    /// A box holding the right ventricle with its tricuspid neck (rightHeartShell).
    std::pair<D3, D3> rightVentricleBox() const {
        const double neck = l_.tricuspidRadius;
        return {minOf(rvCenter_ - rvSemi_, l_.tricuspid - D3{neck, neck, l_.baseCap + 10.0 * l_.s}),
                maxOf(rvCenter_ + rvSemi_, D3{l_.tricuspid.x + neck, l_.tricuspid.y + neck, raCenter_.z})};
    }
    const LvShape& shape() const { return shape_; }
    D3 boundsLo() const { return lo_; }
    D3 boundsHi() const { return hi_; }

    /// Signed distance to the LV cavity; values beyond far_ are reported as far_.
    double lvDistance(double r, double z) const {
        if (table_.empty()) return std::min(exactLvDistance(r, z), far_);
        const double fi = r / step_, fj = (z - tableZ0_) / step_;
        if (fi < 0.0 || fj < 0.0 || fi >= tableNr_ - 1 || fj >= tableNz_ - 1) return far_;
        const int i = static_cast<int>(fi), j = static_cast<int>(fj);
        const double a = fi - i, b = fj - j;
        const std::size_t n = static_cast<std::size_t>(j) * static_cast<std::size_t>(tableNr_) + static_cast<std::size_t>(i);
        const std::size_t up = static_cast<std::size_t>(tableNr_);
        return (1 - b) * ((1 - a) * table_[n] + a * table_[n + 1]) + b * ((1 - a) * table_[n + up] + a * table_[n + up + 1]);
    }

    Distances distances(D3 p) const {
        Distances d;
        const double r = std::sqrt(p.x * p.x + p.y * p.y);
        d.lv = lvDistance(r, p.z);
        const double tube = tubeDistance(p, l_.aorta, l_.aortaRadii);
        d.ao = std::max(tube, -p.z);
        if (l_.aorticOrificeRadius < l_.aorticRadius) {
            // A stenotic valve: a layer of leaflet tissue across the annulus, its orifice
            // a hole through it, the root above.
            const double orifice =
                std::max(std::hypot(p.x - l_.aorticCenter.x, p.y - l_.aorticCenter.y) - l_.aorticOrificeRadius,
                         std::max(-p.z, p.z - kStenoticValveMm - 0.5));
            d.ao = std::min(std::max(tube, kStenoticValveMm - p.z), orifice);
        }
        const double neck = std::max(std::sqrt((p.x - l_.mitralCenter.x) * (p.x - l_.mitralCenter.x) + (p.y - l_.mitralCenter.y) * (p.y - l_.mitralCenter.y)) - l_.mitralRadius,
                                     std::max(-p.z, p.z - neckTop_));
        const double laBody = ellipsoidDistance(p - laCenter_, laSemi_);
        d.la = std::min(std::max({laBody, l_.laClearance - d.lv, l_.aoClearance - d.ao}), neck);
        d.rv = std::numeric_limits<double>::infinity();
        if (l_.rightHeart)
            d.rv = std::max({ellipsoidDistance(p - rvCenter_, rvSemi_), wall_ - d.lv, p.z + l_.baseCap});
        d.blood = std::min({d.lv, d.la, d.ao, d.rv});
        const double lvMyocardium = std::max(d.lv - wall_, p.z - l_.baseCap);
        const double cap = std::max(r - (shape_.ring + wall_), std::max(p.z - l_.baseCap, -p.z));
        const double aoWall = std::max(tube - l_.aoWall, -p.z);
        d.solid = std::min({d.blood, lvMyocardium, cap, d.la - l_.laWall, aoWall, d.rv - l_.rvWall});
        return d;
    }

    /// The right heart (rightHeartShell) at `p`: right ventricle below the base plane
    /// around the septum, tricuspid neck up into the right atrium, pulmonary trunk; all
    /// kept the LV wall's thickness from LV blood and the atrial clearance from atrial
    /// and aortic blood, so that the shell never meets the blood's pool.
    RightHeartDistances rightHeartDistances(D3 p) const {
        const Distances left = distances(p);
        RightHeartDistances d;
        d.rv = std::max(ellipsoidDistance(p - rvCenter_, rvSemi_), p.z + l_.baseCap);
        const double neck = std::max(std::hypot(p.x - l_.tricuspid.x, p.y - l_.tricuspid.y) - l_.tricuspidRadius,
                                     std::max(-p.z - l_.baseCap - 10.0 * l_.s, p.z - raCenter_.z));
        d.rv = std::min(d.rv, neck);
        d.ra = ellipsoidDistance(p - raCenter_, raSemi_);
        d.pulmonary = tubeDistance(p, l_.pulmonary, l_.pulmonaryRadii);
        const double clearance = std::max({wall_ - left.lv, l_.laClearance - left.la, l_.aoClearance - left.ao});
        d.ra = std::max(d.ra, clearance);
        d.rv = std::max(d.rv, clearance);
        d.pulmonary = std::max(d.pulmonary, clearance);
        d.cavity = std::min({d.ra, d.rv, d.pulmonary});
        return d;
    }

private:
    double exactLvDistance(double r, double z) const {
        double best = segmentDistance2D(r, z, shape_.ring, 0.0, 0.0, 0.0); // the base face
        // Profile z grows with the index: start at the segment level with z and walk
        // outwards while a segment's z range can still hold a closer point.
        const auto segment = [&](std::size_t n) {
            return segmentDistance2D(r, z, profile_[n - 1].first, profile_[n - 1].second, profile_[n].first,
                                     profile_[n].second);
        };
        const auto above = std::lower_bound(profile_.begin(), profile_.end(), z,
                                            [](const std::pair<double, double>& pt, double value) { return pt.second < value; });
        const std::size_t start = std::clamp<std::size_t>(static_cast<std::size_t>(above - profile_.begin()), 1,
                                                          profile_.size() - 1);
        for (std::size_t n = start; n < profile_.size() && profile_[n - 1].second <= z + best; ++n)
            best = std::min(best, segment(n));
        for (std::size_t n = start - 1; n >= 1 && profile_[n].second >= z - best; --n) best = std::min(best, segment(n));
        const bool inside = z <= 0.0 && z >= -shape_.length &&
                            r * r <= shape_.rho2((z + shape_.length) / shape_.length);
        return inside ? -best : best;
    }

    void buildTable() {
        step_ = std::min(0.5, l_.voxel / 2.0);
        const double rMax = shape_.maxRadius() + far_ + 2.0 * step_;
        tableZ0_ = -shape_.length - far_ - 2.0 * step_;
        const double zMax = far_ + 2.0 * step_;
        tableNr_ = static_cast<int>(std::ceil(rMax / step_)) + 2;
        tableNz_ = static_cast<int>(std::ceil((zMax - tableZ0_) / step_)) + 2;
        table_.assign(static_cast<std::size_t>(tableNr_) * static_cast<std::size_t>(tableNz_), 0.0f);
        tbb::parallel_for(tbb::blocked_range<int>(0, tableNz_), [&](const tbb::blocked_range<int>& rows) {
            for (int j = rows.begin(); j != rows.end(); ++j) {
                const double z = tableZ0_ + j * step_;
                for (int i = 0; i < tableNr_; ++i)
                    table_[static_cast<std::size_t>(j) * static_cast<std::size_t>(tableNr_) + static_cast<std::size_t>(i)] =
                        static_cast<float>(exactLvDistance(i * step_, z));
            }
        });
    }

    void computeBounds() {
        const double lvOuter = shape_.maxRadius() + wall_;
        lo_ = {-lvOuter, -lvOuter, -shape_.length - wall_};
        hi_ = {lvOuter, lvOuter, l_.baseCap};
        const D3 laPad = laSemi_ + D3{l_.laWall, l_.laWall, l_.laWall};
        lo_ = minOf(lo_, laCenter_ - laPad);
        hi_ = maxOf(hi_, laCenter_ + laPad);
        const double neckPad = l_.mitralRadius + l_.laWall;
        lo_ = minOf(lo_, l_.mitralCenter - D3{neckPad, neckPad, 0});
        hi_ = maxOf(hi_, l_.mitralCenter + D3{neckPad, neckPad, neckTop_});
        for (std::size_t n = 0; n < l_.aorta.size(); ++n) {
            const double tubePad = l_.aortaRadii[n] + l_.aoWall;
            lo_ = minOf(lo_, l_.aorta[n] - D3{tubePad, tubePad, 0});
            hi_ = maxOf(hi_, l_.aorta[n] + D3{tubePad, tubePad, tubePad});
        }
        if (l_.rightHeartShell) {
            lo_ = minOf(lo_, rvCenter_ - rvSemi_);
            hi_ = maxOf(hi_, rvCenter_ + rvSemi_);
            lo_ = minOf(lo_, raCenter_ - raSemi_);
            hi_ = maxOf(hi_, raCenter_ + raSemi_);
            const double pad = l_.pulmonaryRadii.front(), neck = l_.tricuspidRadius;
            for (const D3& point : l_.pulmonary) {
                lo_ = minOf(lo_, point - D3{pad, pad, pad});
                hi_ = maxOf(hi_, point + D3{pad, pad, pad});
            }
            lo_ = minOf(lo_, l_.tricuspid - D3{neck, neck, l_.baseCap + 10.0 * l_.s});
            hi_ = maxOf(hi_, l_.tricuspid + D3{neck, neck, 0});
        }
        if (l_.rightHeart) {
            const D3 pad = rvSemi_ + D3{l_.rvWall, l_.rvWall, l_.rvWall};
            lo_ = minOf(lo_, rvCenter_ - pad);
            hi_ = maxOf(hi_, rvCenter_ + pad);
        }
    }

    const Layout& l_;
    LvShape shape_;
    std::vector<std::pair<double, double>> profile_;
    double wall_ = 0, neckTop_ = 0, far_ = 0;
    D3 laCenter_, laSemi_, rvCenter_, rvSemi_, raCenter_, raSemi_;
    D3 lo_, hi_;
    // 2D (r, z) table of the LV signed distance.
    std::vector<float> table_;
    double step_ = 0.25, tableZ0_ = 0;
    int tableNr_ = 0, tableNz_ = 0;
};

// ---------------------------------------------------------------------------------------
// Counter-based Gaussian noise: independent of how voxels are split among threads.

std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// Two independent standard normal values for the pair index m (Marsaglia's polar
/// method; rejected draws re-hash deterministically).
void gaussianPair(std::uint64_t key, std::uint64_t m, double& g0, double& g1) {
    std::uint64_t h = mix64(key ^ mix64(m));
    for (;;) {
        const double u = static_cast<double>(h >> 32) * 0x1.0p-31 - 1.0;
        const double w = static_cast<double>(h & 0xffffffffu) * 0x1.0p-31 - 1.0;
        const double s = u * u + w * w;
        if (s < 1.0 && s > 0.0) {
            const double f = std::sqrt(-2.0 * std::log(s) / s);
            g0 = u * f;
            g1 = w * f;
            return;
        }
        h = mix64(h);
    }
}

} // namespace

// ---------------------------------------------------------------------------------------

HeartPhantom::HeartPhantom(PhantomParameters parameters) : params_(parameters) {
    params_.validate();
    const Layout layout = layoutFor(params_);
    // Bounds over the cycle: sample densely (the shapes are smooth) and at the keyframes.
    D3 lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
    std::vector<double> samples;
    for (int n = 0; n < 64; ++n) samples.push_back(n / 64.0);
    for (const Keyframe& key : layout.lvCurve) samples.push_back(key.t);
    for (const Keyframe& key : layout.laCurve) samples.push_back(key.t);
    for (const double t : samples) {
        const PhaseGeometry g(layout, t, false);
        lo = minOf(lo, g.boundsLo());
        hi = maxOf(hi, g.boundsHi());
    }
    // Voxel centres at (n + 1/2) * voxel, so the base plane z = 0 falls between two layers.
    const double h = params_.voxelSizeMm;
    constexpr int margin = 4;
    double voxels = 1.0;
    double originD[3];
    const double los[3] = {lo.x, lo.y, lo.z}, his[3] = {hi.x, hi.y, hi.z};
    for (int a = 0; a < 3; ++a) {
        const double first = std::floor(los[a] / h - 0.5) - margin;
        const double last = std::ceil(his[a] / h - 0.5) + margin;
        const double count = last - first + 1.0;
        voxels *= count;
        originD[a] = (first + 0.5) * h;
        dims_[static_cast<std::size_t>(a)] = static_cast<int>(std::min(count, 1e9));
    }
    if (voxels > static_cast<double>(1u << 28)) {
        std::ostringstream out;
        out << "PhantomParameters::voxelSizeMm is too small for this heart: " << dims_[0] << "x" << dims_[1] << "x"
            << dims_[2] << " voxels per phase exceed the limit of 2^28, got " << params_.voxelSizeMm;
        throw std::invalid_argument(out.str());
    }
    origin_ = {static_cast<float>(originD[0]), static_cast<float>(originD[1]), static_cast<float>(originD[2])};
}

Volume HeartPhantom::generatePhase(double phase01) const { return image(phase01, false); }

Volume HeartPhantom::generateRightHeartPhase(double phase01) const {
    if (!params_.rightHeartShell)
        throw std::logic_error("HeartPhantom::generateRightHeartPhase: the phantom has no right heart shell");
    return image(phase01, true);
}

VolumeSeries HeartPhantom::generateRightHeart(std::function<void(double)> progress) const {
    if (!params_.rightHeartShell)
        throw std::logic_error("HeartPhantom::generateRightHeart: the phantom has no right heart shell");
    return series(true, std::move(progress));
}

Volume HeartPhantom::image(double phase01, bool rightHeart) const {
    const double t = wrapPhase(phase01);
    const Layout layout = layoutFor(params_);
    const PhaseGeometry g(layout, t, true);
    // The right heart is a clean image: blood intensity inside, background outside.
    const auto distances = [&](D3 p) {
        if (!rightHeart) return g.distances(p);
        Distances d{};
        d.blood = d.solid = g.rightHeartDistances(p).cavity;
        return d;
    };
    const double h = params_.voxelSizeMm;
    Volume v;
    v.nx = dims_[0];
    v.ny = dims_[1];
    v.nz = dims_[2];
    v.origin = origin_;
    v.spacing = {static_cast<float>(h), static_cast<float>(h), static_cast<float>(h)};
    v.values.assign(v.voxelCount(), params_.backgroundIntensity);

    const double bg = params_.backgroundIntensity, myo = params_.myocardiumIntensity, blood = params_.bloodIntensity;
    const D3 lo = g.boundsLo() - D3{h, h, h}, hi = g.boundsHi() + D3{h, h, h};
    const D3 o{origin_.x, origin_.y, origin_.z};
    const auto coverage = [h](double d) { return std::clamp(0.5 - d / h, 0.0, 1.0); };
    const auto intensity = [&](const Distances& d) {
        return bg + (myo - bg) * coverage(d.solid) + (blood - myo) * coverage(d.blood);
    };

    // Blocks of 4^3 voxels: a block whose centre is farther from every surface than its
    // half-diagonal (times 1.5, as the ellipsoid distance is an estimate) plus half a
    // voxel has one coverage throughout and is filled without per-voxel evaluation.
    constexpr int B = 4;
    const int blocksX = (v.nx + B - 1) / B, blocksY = (v.ny + B - 1) / B, blocksZ = (v.nz + B - 1) / B;
    tbb::parallel_for(tbb::blocked_range<int>(0, blocksZ), [&](const tbb::blocked_range<int>& slabs) {
        for (int bk = slabs.begin(); bk != slabs.end(); ++bk) {
            const int k0 = bk * B, k1 = std::min(v.nz, k0 + B) - 1;
            for (int bj = 0; bj < blocksY; ++bj) {
                const int j0 = bj * B, j1 = std::min(v.ny, j0 + B) - 1;
                for (int bi = 0; bi < blocksX; ++bi) {
                    const int i0 = bi * B, i1 = std::min(v.nx, i0 + B) - 1;
                    const D3 first = o + D3{i0 * h, j0 * h, k0 * h}, last = o + D3{i1 * h, j1 * h, k1 * h};
                    if (last.x < lo.x || first.x > hi.x || last.y < lo.y || first.y > hi.y || last.z < lo.z ||
                        first.z > hi.z)
                        continue; // background, already filled
                    const Distances centre = distances((first + last) * 0.5);
                    const double tolerance = 1.5 * 0.5 * norm(last - first) + 0.5 * h;
                    if (std::fabs(centre.blood) > tolerance && std::fabs(centre.solid) > tolerance) {
                        const float value = static_cast<float>(intensity(centre));
                        for (int k = k0; k <= k1; ++k)
                            for (int j = j0; j <= j1; ++j)
                                std::fill_n(v.values.begin() + static_cast<std::ptrdiff_t>(v.index(i0, j, k)), i1 - i0 + 1,
                                            value);
                        continue;
                    }
                    for (int k = k0; k <= k1; ++k)
                        for (int j = j0; j <= j1; ++j)
                            for (int i = i0; i <= i1; ++i)
                                v.at(i, j, k) = static_cast<float>(intensity(distances(o + D3{i * h, j * h, k * h})));
                }
            }
        }
    });

    // Gaussian noise, pair m going to voxels 2m and 2m+1 in memory order. Within an
    // isovolumic phase the ventricle holds still, and so does its image: those phases
    // share the noise of the phase's start, so that the surfaces extracted from them
    // agree and the wall's volume rate is zero there (noise alone would make it flicker
    // by a few ml/s, enough to hold a valve open on a coarse grid).
    const double sigma = rightHeart ? 0.0 : params_.noise * (blood - myo);
    if (sigma > 0.0) {
        double noisePhase = t;
        if (t <= layout.timing.ejection) noisePhase = 0.0;
        else if (t >= layout.timing.isovolumicRelaxation && t <= layout.timing.rapidFilling)
            noisePhase = layout.timing.isovolumicRelaxation;
        const std::uint64_t key =
            mix64((static_cast<std::uint64_t>(params_.seed) << 1) ^ mix64(std::bit_cast<std::uint64_t>(noisePhase)));
        const std::size_t count = v.values.size();
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, (count + 1) / 2), [&](const tbb::blocked_range<std::size_t>& pairs) {
            for (std::size_t m = pairs.begin(); m != pairs.end(); ++m) {
                double g0, g1;
                gaussianPair(key, m, g0, g1);
                v.values[2 * m] += static_cast<float>(sigma * g0);
                if (2 * m + 1 < count) v.values[2 * m + 1] += static_cast<float>(sigma * g1);
            }
        });
    }
    return v;
}

VolumeSeries HeartPhantom::generate(std::function<void(double)> progress) const { return series(false, std::move(progress)); }

VolumeSeries HeartPhantom::series(bool rightHeart, std::function<void(double)> progress) const {
    VolumeSeries out;
    out.cycleSeconds = cycleSeconds();
    out.phases.reserve(static_cast<std::size_t>(params_.phases));
    for (int k = 0; k < params_.phases; ++k) {
        out.phases.push_back(image(static_cast<double>(k) / params_.phases, rightHeart));
        if (progress) progress(static_cast<double>(k + 1) / params_.phases);
    }
    return out;
}

double HeartPhantom::lvVolumeMl(double phase01) const { return lvVolumeAt(layoutFor(params_), phase01) / 1000.0; }

CycleTiming HeartPhantom::timing() const { return timingFor(params_.heartRateBpm, params_.phases); }

double HeartPhantom::ejectionFractionAnalytic() const {
    const double ed = lvVolumeMl(0.0), es = lvVolumeMl(endSystolicPhase());
    return (ed - es) / ed;
}

double HeartPhantom::laVolumeMl(double phase01) const { return laVolumeAt(layoutFor(params_), phase01) / 1000.0; }

ValveDisc HeartPhantom::mitralValve(double) const {
    const Layout l = layoutFor(params_);
    return {toVec(l.mitralCenter), {0.f, 0.f, -1.f}, l.mitralRadius};
}

ValveDisc HeartPhantom::aorticValve(double) const {
    const Layout l = layoutFor(params_);
    return {toVec(l.aorticCenter), {0.f, 0.f, 1.f}, l.aorticOrificeRadius};
}

EllipsoidShape HeartPhantom::leftAtrium(double phase01) const { return laShapeAt(layoutFor(params_), phase01); }

VesselTube HeartPhantom::aorta() const {
    const Layout l = layoutFor(params_);
    VesselTube tube{{}, l.aorticRadius, l.aortaRadii};
    for (const D3& point : l.aorta) tube.centerline.push_back(toVec(point));
    return tube;
}

Tissue HeartPhantom::rightHeartAt(sph::Vec3 p, double phase01) const {
    if (!params_.rightHeartShell) return Tissue::Background;
    const Layout layout = layoutFor(params_);
    const PhaseGeometry g(layout, wrapPhase(phase01), false);
    const RightHeartDistances d = g.rightHeartDistances({p.x, p.y, p.z});
    if (d.cavity >= 0.0) return Tissue::Background;
    if (d.cavity == d.ra) return Tissue::RightAtrium;
    if (d.cavity == d.rv) return Tissue::RightVentricle;
    return Tissue::PulmonaryTrunk;
}

std::optional<HeartPhantom::RightHeartLandmarks> HeartPhantom::rightHeartLandmarks(double phase01) const {
    if (!params_.rightHeartShell) return std::nullopt;
    const Layout l = layoutFor(params_);
    const PhaseGeometry g(l, wrapPhase(phase01), false);
    // The RV's ellipsoid centre lies in the septum: its far, free-wall side instead.
    return RightHeartLandmarks{toVec(g.rightAtriumCenter()), toVec(g.rightVentricleFarSide()), toVec(l.pulmonary[2])};
}

double HeartPhantom::raVolumeMl(double phase01) const { return params_.rightHeartShell ? laVolumeMl(phase01) : 0.0; }

std::vector<double> HeartPhantom::rvVolumesMl(int samples, double voxelMm) const {
    if (!params_.rightHeartShell || samples <= 0) return {};
    const Layout l = layoutFor(params_);
    const auto countMl = [&](double phase) {
        const PhaseGeometry g(l, phase, false);
        const auto [lo, hi] = g.rightVentricleBox();
        const double h = voxelMm;
        std::size_t inside = 0;
        for (double z = lo.z + 0.5 * h; z < hi.z; z += h)
            for (double y = lo.y + 0.5 * h; y < hi.y; y += h)
                for (double x = lo.x + 0.5 * h; x < hi.x; x += h) {
                    const RightHeartDistances d = g.rightHeartDistances({x, y, z});
                    inside += d.cavity < 0.0 && d.cavity == d.rv;
                }
        return double(inside) * h * h * h / 1000.0;
    };
    // The ellipsoid's volume is linear in the stroke fraction f; the chamber it is
    // clipped to (by the left heart's clearance) follows it closely: counted at f = 0
    // (end systole), 1 (end diastole) and near 1/2 in filling, linear in f between.
    double midPhase = 0.5, midF = strokeFraction(l, 0.5);
    for (int k = 0; k < samples; ++k)
        if (const double t = double(k) / samples, f = strokeFraction(l, t);
            t > l.timing.isovolumicRelaxation && std::fabs(f - 0.5) < std::fabs(midF - 0.5))
            midPhase = t, midF = f;
    const double es = countMl(l.timing.isovolumicRelaxation), mid = countMl(midPhase), ed = countMl(0.0);
    std::vector<double> ml(static_cast<std::size_t>(samples));
    for (int k = 0; k < samples; ++k) {
        const double f = strokeFraction(l, double(k) / samples);
        ml[std::size_t(k)] = f <= midF ? es + (mid - es) * f / midF : mid + (ed - mid) * (f - midF) / (1.0 - midF);
    }
    return ml;
}

double HeartPhantom::lvLengthMm(double phase01) const {
    const Layout l = layoutFor(params_);
    return lvShapeFor(l, lvVolumeAt(l, phase01)).length;
}

sph::Vec3 HeartPhantom::lvCavityCenter(double phase01) const {
    return {0.f, 0.f, static_cast<float>(-0.5 * lvLengthMm(phase01))};
}

double HeartPhantom::lvWallThicknessMm(double phase01) const {
    const Layout l = layoutFor(params_);
    return wallAt(l, lvShapeFor(l, lvVolumeAt(l, phase01)));
}

Tissue HeartPhantom::tissueAt(sph::Vec3 p, double phase01) const {
    const Layout layout = layoutFor(params_);
    const PhaseGeometry g(layout, wrapPhase(phase01), false);
    const Distances d = g.distances({p.x, p.y, p.z});
    if (d.blood < 0.0) {
        if (d.blood == d.lv) return Tissue::LeftVentricle;
        if (d.blood == d.la) return Tissue::LeftAtrium;
        if (d.blood == d.ao) return Tissue::Aorta;
        return Tissue::RightVentricle;
    }
    return d.solid < 0.0 ? Tissue::Myocardium : Tissue::Background;
}

} // namespace atrium::heart
