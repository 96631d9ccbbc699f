import Foundation
import Cyanotype

// Speed targets of the catalogue issue's blurs (16): the disc, bokeh and motion blurs at
// radius 20 against OpenCV's filter2D with the same kernel on the same RGBA8 pixels (edges
// replicated on both sides), the masked variable blur against the Gaussian blur at its
// maximum radius, and noise reduction's throughput.

/// OpenCV's `filter2D`, timed inside one Python process (so start-up, imports and reading
/// the raw pixels stay out of the timing): best of `runs`, with that run's CPU time, on 2
/// threads (`cv2.setNumThreads(2)`), the kernel built from the same definition as ours.
enum OpenCVPeer {
    static let script = #"""
        import sys, time, numpy as np, cv2
        path, w, h, runs, kind, radius = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
        angle = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
        cv2.setNumThreads(2)
        img = np.fromfile(path, dtype=np.uint8).reshape(h, w, 4)
        def disc(r):
            n = int(r); yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
            k = (xx * xx + yy * yy <= r * r).astype(np.float64)
            return k / k.sum()
        def gauss(s):
            n = max(1, int(np.ceil(3 * s))); t = np.exp(-np.arange(-n, n + 1) ** 2 / (2 * s * s)); return t / t.sum()
        if kind == "disc":
            k = disc(radius)
        elif kind == "bokeh":
            g = gauss(1.0); k = cv2.filter2D(np.pad(disc(radius), len(g) // 2), -1, np.outer(g, g), borderType=cv2.BORDER_CONSTANT)
        elif kind == "motion":
            # Our line: 2L + 1 points (t, t tan(angle)) read between two rows (nearer horizontal).
            c, s = np.cos(angle), np.sin(angle); L = int(round(radius * abs(c))); m = s / c
            rows = int(np.ceil(L * abs(m))) + 1
            k = np.zeros((2 * rows + 1, 2 * L + 1))
            for t in range(-L, L + 1):
                v = t * m; j = int(np.floor(v)); f = v - j
                # Rows ascend downwards in OpenCV: y up is row - 1.
                k[rows - j, t + L] += 1 - f; k[rows - j - 1, t + L] += f
            k /= k.sum()
        k = k.astype(np.float32)
        best, cpu = 1e9, 0.0
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            out = cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REPLICATE)
            t1, c1 = time.perf_counter(), time.process_time()
            if t1 - t0 < best: best, cpu = t1 - t0, c1 - c0
        print("%.6f %.6f %d %d %s" % (best, cpu, k.shape[0], k.shape[1], cv2.__version__))
        """#

    /// Whether `python3` can import cv2 (pip install opencv-python-headless, or Debian's
    /// python3-opencv).
    static var available: Bool { Shell.output("python3 -c 'import cv2'") != nil }

    /// The best time of `filter2D` with kernel `kind` ("disc", "bokeh", "motion") over the
    /// bench image, with a note naming the kernel's size and OpenCV's version.
    static func time(_ env: BenchEnvironment, _ kind: String, radius: Double, angle: Double = 0) throws -> (Timing, String) {
        let scriptURL = env.file("filter2d.py")
        if !FileManager.default.fileExists(atPath: scriptURL.path) { try script.write(to: scriptURL, atomically: true, encoding: .utf8) }
        let raw = try env.rawFile.get()
        let cmd = "cd '\(env.dir.path)' && python3 filter2d.py \(raw.path) \(env.image.width) \(env.image.height) \(env.runs) \(kind) \(radius) \(angle)"
        guard let out = Shell.output(cmd) else { throw BenchError("python3 filter2d.py \(kind) failed") }
        let parts = out.split(separator: " ")
        guard parts.count == 5, let wall = Double(parts[0]), let cpu = Double(parts[1]) else { throw BenchError("filter2d.py printed \(out)") }
        return (Timing(wall: wall, cpu: cpu), "\(parts[2])x\(parts[3]) kernel, OpenCV \(parts[4])")
    }
}

/// 16. The catalogue's blurs: disc, bokeh and motion blur against OpenCV's filter2D; the
/// masked variable blur against CIGaussianBlur; noise reduction's throughput.
struct BlurCatalog: Workload {
    let key = "blurs"

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let src = env.ciImage8.clampedToExtent()
        func recipe(_ name: String, _ params: [String: Any]) -> CIImage {
            src.applyingFilter(name, parameters: params).cropped(to: img.extent)
        }
        var rows = [Row]()
        let cv = OpenCVPeer.available
        if !cv { env.notes.append("16 blurs: OpenCV missing (scripts/bench.sh installs python3-opencv)") }
        func peerRow(_ label: String, _ ours: Timing, _ kind: String, radius: Double, angle: Double = 0) {
            guard cv else {
                rows.append(
                    Row(
                        workload: label, ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                        reference: "(OpenCV missing)", referenceValue: nil, target: .ratioBelow(1)))
                return
            }
            do {
                let (t, what) = try OpenCVPeer.time(env, kind, radius: radius, angle: angle)
                rows.append(
                    Row(
                        workload: label, ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                        reference: "OpenCV filter2D, same kernel (\(what))", referenceValue: .time(t), referenceCPU: t.cpu, target: .ratioBelow(1)))
            } catch {
                env.notes.append("16 blurs: \(label): OpenCV skipped: \(error)")
            }
        }

        let disc = try env.time8(recipe("CIDiscBlur", [kCIInputRadiusKey: 20]))
        peerRow("16 CIDiscBlur radius 20, RGBA8", disc, "disc", radius: 20)
        let bokeh = try env.time8(recipe("CIBokehBlur", [kCIInputRadiusKey: 20]))
        peerRow("16 CIBokehBlur radius 20 (softness 1), RGBA8", bokeh, "bokeh", radius: 20)
        let motion = try env.time8(recipe("CIMotionBlur", [kCIInputRadiusKey: 20, kCIInputAngleKey: 0]))
        peerRow("16 CIMotionBlur radius 20, angle 0, RGBA8", motion, "motion", radius: 20, angle: 0)
        let slanted = try env.time8(recipe("CIMotionBlur", [kCIInputRadiusKey: 20, kCIInputAngleKey: Double.pi / 6]))
        peerRow("16 CIMotionBlur radius 20, angle 30 deg, RGBA8", slanted, "motion", radius: 20, angle: Double.pi / 6)

        // The masked variable blur at radius 10 (Apple's slider maximum) against the Gaussian
        // blur of sigma 10: the photo itself as the mask (each pixel's radius from its luma),
        // and a white mask (the full radius everywhere).
        let gaussian = try env.time8(recipe("CIGaussianBlur", [kCIInputRadiusKey: 10]))
        let masked = try env.time8(recipe("CIMaskedVariableBlur", ["inputMask": env.ciImage8, kCIInputRadiusKey: 10]))
        let white = try env.time8(recipe("CIMaskedVariableBlur", ["inputMask": CIImage(color: .white), kCIInputRadiusKey: 10]))
        rows.append(
            Row(
                workload: "16 CIMaskedVariableBlur radius 10, the photo as mask, RGBA8", ours: .time(masked), oursCPU: masked.cpu,
                megapixels: img.megapixels, reference: "ours, CIGaussianBlur sigma 10", referenceValue: .time(gaussian),
                referenceCPU: gaussian.cpu, target: .ratioAtMost(3)))
        rows.append(
            Row(
                workload: "16 CIMaskedVariableBlur radius 10, white mask, RGBA8", ours: .time(white), oursCPU: white.cpu,
                megapixels: img.megapixels, reference: "ours, CIGaussianBlur sigma 10", referenceValue: .time(gaussian),
                referenceCPU: gaussian.cpu, target: .ratioAtMost(3)))

        let noise = try env.time8(recipe("CINoiseReduction", [:]))
        rows.append(
            Row(
                workload: "16 CINoiseReduction (defaults), RGBA8", ours: .time(noise), oursCPU: noise.cpu, megapixels: img.megapixels,
                reference: "-", referenceValue: nil, target: .throughputAtLeast(100)))
        return rows
    }
}
