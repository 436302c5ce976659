// The student page: joins the lecture on this page's own host and port with the code
// from ?code=, draws the heart's wall beating at the lecturer's phase with three.js
// (WebGL2), and follows the lecturer's camera through the pose buffer, or lets the
// student orbit (drag, wheel, pinch) until "Follow lecturer" (or F) returns. It says
// what it is doing: connecting, following, exploring, held, reconnecting.

import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

import { LectureSession } from "./session.js";
import { forwardOf } from "./poseMath.js";
import { decodeWall, sampleWall } from "./wall.js";
import { evaluateNarrative } from "./narrative.js";
import { OverlayLayer } from "./overlays.js";

const FIELD_OF_VIEW_DEG = 40; // the desktop view's (widgets/view/SceneRenderer.h)

const canvas = document.getElementById("view");
const stateLabel = document.getElementById("state");
const followButton = document.getElementById("follow");
const message = document.getElementById("message");
const overlayLayer = new OverlayLayer(document.getElementById("overlays"));
let narratives = null; // /content/narratives-<hash>.json, when the lecture has any

const page = {
  state: "connecting",
  framesDrawn: 0,
  firstFrameMs: null,
  wall: null,
  shown: null, // {t, pose}: the lecturer's time shown and the camera it gave
  exploring: false,
  pointerDowns: 0,
};

function say(text) {
  message.textContent = text; // text only: nothing the server sends becomes markup
  message.hidden = !text;
}

const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.localClippingEnabled = true;
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x10141c);
const camera = new THREE.PerspectiveCamera(FIELD_OF_VIEW_DEG, 1, 1, 5000);
camera.up.set(0, 0, 1); // the heart's frame: +Z up
camera.position.set(0, -300, 0);
camera.lookAt(0, 0, 0);
scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.2));
const headLight = new THREE.DirectionalLight(0xffffff, 1.4);
camera.add(headLight);
scene.add(camera);

const wallMaterial = new THREE.MeshPhongMaterial({
  color: 0xc0504d,
  specular: 0x222222,
  shininess: 20,
  side: THREE.DoubleSide,
  transparent: true,
  opacity: 0.45,
  depthWrite: false,
});
let wallMeshes = []; // one three.js mesh per phase; the one in use is visible
let wallVertices = []; // per phase, its Float32Array of positions (updated each frame)

canvas.addEventListener("pointerdown", () => (page.pointerDowns += 1)); // for the tests: input that reached the page
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
controls.enabled = true;
controls.addEventListener("start", () => {
  if (!page.exploring && heldByLecturer()) return;
  startExploring();
});

const params = new URLSearchParams(window.location.search);
const code = (params.get("code") || "").trim().toUpperCase();
let session = null;

function heldByLecturer() {
  return !!(session && session.state && session.state.attention === "hold");
}

function startExploring() {
  if (page.exploring) return;
  page.exploring = true;
  if (session) session.setFollowing(false);
  updateState();
}

function follow() {
  page.exploring = false;
  if (session) session.setFollowing(true);
  updateState();
}

followButton.addEventListener("click", follow);
window.addEventListener("keydown", (e) => {
  if (e.key === "f" || e.key === "F") follow();
});

function updateState() {
  let s;
  if (!session) s = "no lecture";
  else if (session.refused) s = "refused";
  else if (!session.connected) s = session.sessionId === null ? "connecting" : "reconnecting";
  else if (heldByLecturer()) s = "held";
  else s = page.exploring ? "exploring" : "following";
  if (s === "held" && page.exploring) page.exploring = false;
  controls.enabled = s !== "held";
  page.state = s;
  stateLabel.textContent = s;
  document.body.dataset.state = s;
  followButton.hidden = !(s === "exploring");
}

async function loadWall() {
  const contents = await (await fetch("/content.json", { cache: "no-cache" })).json();
  if (contents.narratives)
    fetch(contents.narratives.url)
      .then((r) => r.json())
      .then((n) => (narratives = n.narratives))
      .catch((e) => say(`The narratives could not be loaded: ${e.message}`));
  if (!contents.wall) {
    say(`The heart's wall is not available: ${contents.wallMissing || "unknown reason"}`);
    return;
  }
  const response = await fetch(contents.wall.url);
  if (!response.ok) throw new Error(`${contents.wall.url}: HTTP ${response.status}`);
  const wall = decodeWall(await response.arrayBuffer());
  page.wall = wall;
  page.wallBytes = contents.wall.bytes;
  for (const phase of wall.phases) {
    const geometry = new THREE.BufferGeometry();
    const positions = new Float32Array(phase.positions.length);
    positions.set(phase.positions);
    geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    geometry.setIndex(new THREE.BufferAttribute(phase.indices, 1));
    geometry.computeVertexNormals();
    const mesh = new THREE.Mesh(geometry, wallMaterial);
    mesh.visible = false;
    mesh.frustumCulled = false;
    scene.add(mesh);
    wallMeshes.push(mesh);
    wallVertices.push(positions);
  }
  const { low, high } = wall.box;
  controls.target.set((low[0] + high[0]) / 2, (low[1] + high[1]) / 2, (low[2] + high[2]) / 2);
}

function resize() {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== Math.floor(width * renderer.getPixelRatio()) || canvas.height !== Math.floor(height * renderer.getPixelRatio())) {
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
  }
}

// The cut that opens the heart, as the desktop view makes it (widgets/view/SceneView.cpp):
// a plane through the heart's centre, its normal from the camera towards the centre,
// shifted by clipOffset times the heart's radius along it; the near half is cut away.
const cutPlane = new THREE.Plane();
function applyView(view) {
  if (!view) return;
  if (typeof view.opacity === "number") wallMaterial.opacity = Math.min(Math.max(view.opacity, 0.05), 1);
  wallMaterial.wireframe = !!view.wireframe;
  if (!view.clip || !page.wall) {
    wallMaterial.clippingPlanes = [];
    return;
  }
  const { low, high } = page.wall.box;
  const centre = new THREE.Vector3((low[0] + high[0]) / 2, (low[1] + high[1]) / 2, (low[2] + high[2]) / 2);
  const radius = 0.5 * Math.hypot(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  const normal = centre.clone().sub(camera.position);
  if (normal.length() > 1e-9) normal.normalize();
  else camera.getWorldDirection(normal);
  const offset = Math.min(Math.max(view.clipOffset || 0, -1), 1);
  const point = centre.clone().addScaledVector(normal, offset * radius);
  cutPlane.setFromNormalAndCoplanarPoint(normal, point);
  wallMaterial.clippingPlanes = [cutPlane];
}

let shownMesh = -1;
function drawWall(now) {
  if (!page.wall || !session) return;
  const phase = session.heartPhase(now);
  const k = sampleWall(page.wall, phase === null ? 0 : phase, wallVertices);
  const mesh = wallMeshes[k];
  mesh.geometry.attributes.position.needsUpdate = true;
  mesh.geometry.computeVertexNormals();
  if (shownMesh !== k) {
    if (shownMesh >= 0) wallMeshes[shownMesh].visible = false;
    mesh.visible = true;
    shownMesh = k;
  }
}

function followCamera() {
  if (!session || page.exploring) return;
  const now = session.cameraNow();
  const pose = session.poses.poseAt(now);
  if (!pose) return;
  const samples = session.poses.samples;
  page.shown = { t: now - session.poses.delay, pose, newestT: samples.length ? samples[samples.length - 1].t : null };
  const f = forwardOf(pose);
  camera.position.set(pose.p[0], pose.p[1], pose.p[2]);
  camera.lookAt(pose.p[0] + f[0], pose.p[1] + f[1], pose.p[2] + f[2]);
}

let overlayShown = { node: -1, alpha: 0 };
function drawOverlays(now) {
  const n = session && session.state && session.state.narrative;
  const narrative = n && narratives && n.index >= 0 ? narratives[n.index] : null;
  if (!narrative) {
    overlayLayer.show(-1, null, 0);
    overlayShown = { node: -1, alpha: 0 };
    return;
  }
  const t = n.playing ? n.time + (now - n.at) : n.time;
  const e = evaluateNarrative(narrative, t, n.keys || [], !!n.loop, !!n.entry);
  const node = e.node >= 0 && e.overlayAlpha > 0 ? { index: e.node, overlays: narrative.nodes[e.node].overlays } : null;
  overlayLayer.show(n.index, node, e.overlayAlpha);
  overlayShown = { node: node ? e.node : -1, alpha: node ? e.overlayAlpha : 0 };
}

function frame() {
  resize();
  if (session) {
    const now = session.now();
    followCamera();
    if (session.state) applyView(session.state.view); // after the camera: the cut faces it
    drawWall(now);
    drawOverlays(now);
  }
  renderer.render(scene, camera);
  if (shownMesh >= 0) {
    page.framesDrawn += 1;
    if (page.firstFrameMs === null) page.firstFrameMs = performance.now();
  }
  requestAnimationFrame(frame);
}

/** What the page shows, for the browser tests (read-only copies). */
window.atriumPage = () => {
  const f = new THREE.Vector3();
  camera.getWorldDirection(f);
  return {
    state: page.state,
    framesDrawn: page.framesDrawn,
    firstFrameMs: page.firstFrameMs,
    wallPhases: page.wall ? page.wall.phases.length : 0,
    wallBytes: page.wallBytes || 0,
    camera: { p: camera.position.toArray(), forward: f.toArray() },
    shown: page.shown ? JSON.parse(JSON.stringify(page.shown)) : null,
    sessionNow: session ? session.now() : null,
    heartPhase: session ? session.heartPhase(session.now()) : null,
    sessionId: session ? session.sessionId : null,
    pointerDowns: page.pointerDowns,
    narrative: session && session.state ? session.state.narrative : null,
    narrativesLoaded: narratives !== null,
    overlay: { ...overlayShown, html: document.getElementById("overlays").innerHTML },
    cut: wallMaterial.clippingPlanes.length ? { normal: cutPlane.normal.toArray(), constant: cutPlane.constant } : null,
    wallMesh: shownMesh,
    delay: session ? session.poses.delay : null,
  };
};

if (!/^[A-Z0-9]{4,12}$/.test(code)) {
  say("This page needs the lecture's join code: open the address the lecturer shows (it ends in ?code=...).");
  updateState();
} else {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  session = new LectureSession(`${scheme}//${window.location.host}/`, code, (what) => {
    if (what === "refused") say(`The lecture refused this page: ${session.refused}`);
    updateState();
  });
  updateState();
  loadWall().catch((e) => say(`The heart could not be loaded: ${e.message}`));
}
requestAnimationFrame(frame);
