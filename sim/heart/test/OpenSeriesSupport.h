#pragma once
// Open mesh series made from what the project has, shaped like fitted real data: a
// ventricle open at its base, one boundary loop per valve annulus.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"

#include <vtkClipPolyData.h>
#include <vtkNew.h>
#include <vtkPlane.h>
#include <vtkPolyData.h>

#include <vector>

namespace atrium::heart::test {

/// The phantom's blood-pool surface per phase (extracted as the pipeline does) with its
/// atrium and aorta cut away just above the valve plane (z = `cutMm`): the left
/// ventricle open at the mitral (larger) and aortic openings.
inline std::vector<sph::TriangleMesh> phantomVentricleCutOut(const PhantomParameters& p, double cutMm = 2.0) {
    const HeartPhantom phantom(p);
    const VolumeSeries series = phantom.generate();
    const float iso = suggestIsovalue(series.phases[0]);
    std::vector<sph::TriangleMesh> out;
    for (const Volume& v : series.phases) {
        ExtractionSettings es;
        es.isovalue = iso;
        es.noiseBoxMm = 2.0;
        const sph::TriangleMesh whole = extractSurface(v, es);
        vtkNew<vtkPlane> plane;
        plane->SetOrigin(0.0, 0.0, cutMm);
        plane->SetNormal(0.0, 0.0, -1.0); // keeps z < cutMm
        vtkNew<vtkClipPolyData> clip;
        clip->SetInputData(toPolyData(whole));
        clip->SetClipFunction(plane);
        clip->Update();
        sph::TriangleMesh m = toTriangleMesh(clip->GetOutput());
        compactVertices(m);
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace atrium::heart::test
