import Foundation
import Cyanotype

// The Gaussian blur beside its peers (#17 goal 2): in memory, 8-bit in and out, against
// OpenCV's `GaussianBlur` (same 3-sigma kernel, edges replicated, timed inside Python around
// the call alone, taking turns with ours); each output's accuracy against a float64 Gaussian
// computed here; and file to file through the command-line tool against `vips gaussblur`.

/// OpenCV's side: reads the raw RGBA file, times `GaussianBlur` alone (wall and process CPU,
/// all threads), writes its output once, prints "version threads wall cpu".
private let openCVScript = """
    import sys, time
    import numpy as np, cv2
    w, h, ksize, sigma = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    img = np.fromfile(sys.argv[5], dtype=np.uint8).reshape(h, w, 4)
    t0 = time.perf_counter(); c0 = time.process_time()
    out = cv2.GaussianBlur(img, (ksize, ksize), sigma, borderType=cv2.BORDER_REPLICATE)
    wall = time.perf_counter() - t0; cpu = time.process_time() - c0
    if len(sys.argv) > 6: out.tofile(sys.argv[6])
    print(cv2.__version__, cv2.getNumThreads(), wall, cpu)
    """

/// The Python that has OpenCV, or nil.
private func pythonWithOpenCV() -> String? {
    Shell.output("python3 -c 'import cv2, numpy' && echo ok") == "ok" ? "python3" : nil
}

/// Largest and mean distance, in 8-bit levels, of `got` (RGBA8 rows, top first) from a float64
/// Gaussian (the same 3-sigma taps, renormalised, edges replicated) at `samples` seeded
/// positions, RGB only. `linearLight`: the reference blurs linear light (sRGB decoded, blurred,
/// encoded), as our colour-managed render does; else it blurs the codes, as OpenCV does.
func gaussianError(
    _ got: UnsafePointer<UInt8>, source: UnsafePointer<UInt8>, width: Int, height: Int, sigma: Double,
    linearLight: Bool, samples: Int = 400
) -> (max: Double, mean: Double) {
    let r = Int((3 * sigma).rounded(.up))
    var w = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let total = w.reduce(0, +)
    w = w.map { $0 / total }
    func decode(_ c: UInt8) -> Double {
        let v = Double(c) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    func encode(_ v: Double) -> Double {
        let c = min(max(v, 0), 1)
        return (c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055) * 255
    }
    let table = (0..<256).map { linearLight ? decode(UInt8($0)) : Double($0) }
    var seed: UInt64 = 0x2545_F491_4F6C_DD1D
    var worst = 0.0, sum = 0.0
    for s in 0..<samples {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        // A quarter of the samples within the kernel's reach of an edge.
        let nearEdge = s % 4 == 0
        let x = nearEdge ? (s % 8 == 0 ? Int(seed >> 33) % r : width - 1 - Int(seed >> 33) % r) : Int(seed >> 33) % width
        let y = Int((seed >> 13) & 0xFFFFF) % height
        for c in 0..<3 {
            var acc = 0.0
            for j in -r...r {
                let row = source + min(max(y + j, 0), height - 1) * width * 4
                var racc = 0.0
                for i in -r...r { racc += w[i + r] * table[Int(row[4 * min(max(x + i, 0), width - 1) + c])] }
                acc += w[j + r] * racc
            }
            let ref = linearLight ? encode(acc) : acc
            let e = abs(Double(got[(y * width + x) * 4 + c]) - ref)
            worst = max(worst, e)
            sum += e
        }
    }
    return (worst, sum / Double(3 * samples))
}

/// Rows of workload 3 beside OpenCV and vips (the caller's `ours` is the in-memory blur).
func blurPeerRows(_ env: BenchEnvironment) throws -> [Row] {
    let img = env.image, sigma = 10.0
    let ksize = 2 * Int((3 * sigma).rounded(.up)) + 1
    var rows = [Row]()
    if let python = pythonWithOpenCV() {
        let raw = try env.rawFile.get()
        try openCVScript.write(to: env.file("cv_blur.py"), atomically: true, encoding: .utf8)
        let args = "\(img.width) \(img.height) \(ksize) \(sigma) \(raw.path)"
        // Taking turns: one of ours, one of OpenCV's, `runs` times; best of each.
        var ours = Timing(wall: .infinity, cpu: 0), theirs = Timing(wall: .infinity, cpu: 0)
        var version = "?", threads = "?"
        for round in 0..<max(1, env.runs) {
            let t = try bestOf(1) { try env.render8(blurred(env), bounds: img.extent) }
            if t.wall < ours.wall { ours = t }
            let out = round == 0 ? " \(env.file("out-opencv.rgba").path)" : ""
            guard let line = Shell.output("cd '\(env.dir.path)' && \(python) cv_blur.py \(args)\(out)")?.split(separator: " "),
                line.count == 4, let wall = Double(line[2]), let cpu = Double(line[3])
            else { throw BenchError("the OpenCV script failed") }
            version = String(line[0]); threads = String(line[1])
            if wall < theirs.wall { theirs = Timing(wall: wall, cpu: cpu) }
        }
        rows.append(
            Row(
                workload: "3 blur sigma 10 in memory, RGBA8 in and out (3-sigma kernel, edges clamped)", ours: .time(ours), oursCPU: ours.cpu,
                megapixels: img.megapixels, reference: "OpenCV \(version) GaussianBlur \(ksize)x\(ksize), \(threads) threads",
                referenceValue: .time(theirs), referenceCPU: theirs.cpu, target: .ratioBelow(1)))
        // Accuracy: ours (still in output8) and OpenCV's against float64 Gaussians.
        let theirBytes = try Data(contentsOf: env.file("out-opencv.rgba"))
        let (oursErr, theirErr) = env.rgba8.withUnsafeBytes { srcRaw in
            let src = srcRaw.bindMemory(to: UInt8.self).baseAddress!
            let o = gaussianError(
                env.output8.assumingMemoryBound(to: UInt8.self), source: src, width: img.width, height: img.height,
                sigma: sigma, linearLight: true)
            let t = theirBytes.withUnsafeBytes {
                gaussianError(
                    $0.bindMemory(to: UInt8.self).baseAddress!, source: src, width: img.width,
                    height: img.height, sigma: sigma, linearLight: false)
            }
            return (o, t)
        }
        rows.append(
            Row(
                workload: "3 same, max |error| vs a float64 Gaussian (ours: linear light; OpenCV: sRGB codes)",
                ours: .measure(oursErr.max, "levels"), megapixels: nil,
                reference: String(format: "OpenCV; means %.3f vs %.3f", oursErr.mean, theirErr.mean),
                referenceValue: .measure(theirErr.max, "levels"), target: .ratioAtMost(1)))
    } else {
        env.notes.append("3 blur: OpenCV for Python missing (pip install opencv-python-headless, or apt-get install python3-opencv): its rows skipped")
    }
    // File to file through the tool, against vips' default gaussblur (integer precision,
    // kernel cut where it falls below 0.2), both writing 4:2:0 JPEG q90.
    guard let cli = env.commandLineTool, Shell.available("vips") else {
        env.notes.append("3 blur: file to file skipped (needs the cyanotype tool beside the benchmark, and vips)")
        return rows
    }
    let input = try inputJPEG(env)
    let t = try Shell.timeInterleaved(
        [
            "\(cli) apply \(input.path) -f 'gaussianBlur radius=10' -q 90 --subsample 420 -o blur-cli.jpg",
            "vips gaussblur \(input.path) 'blur-vips.jpg[Q=90,subsample_mode=on]' 10",
        ],
        runs: env.runs, in: env.dir)
    rows.append(
        Row(
            workload: "3 JPEG -> blur sigma 10 -> JPEG q90 (cyanotype apply)", ours: .time(t[0]), oursCPU: t[0].cpu,
            megapixels: img.megapixels, reference: "vips gaussblur 10, Q=90 4:2:0", referenceValue: .time(t[1]),
            referenceCPU: t[1].cpu, target: .ratioAtMost(0.8)))
    return rows
}
