import Cyanotype
import Foundation

/// 12. RAW development: a 24 MP DNG (6000x4000, 14-bit RGGB, written by the tests' make_dng.py)
/// developed to JPEG with CIRAWFilter's neutral develop (AHD, camera white balance, sRGB, no
/// curve), beside LibRaw's dcraw_emu (Debian's libraw-bin, 0.20; it writes PPM, not JPEG) and
/// rawpy (LibRaw 0.22 from PyPI, develop only) with the same settings; full, draft (half size)
/// and the default develop (tone curve on) to a long edge of 800 against its full size. CPU
/// seconds are the fair column on a shared machine.
struct RAWDevelop: Workload {
    let key = "raw"

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/CyanotypeTests/Fixtures/make_dng.py").path
        let dng = env.dir.appendingPathComponent("raw24.dng")
        do {
            try Shell.run("/usr/bin/python3 '\(script)' '\(dng.path)' --width 6000 --height 4000 --noise 0.002 > /dev/null", in: env.dir)
        } catch {
            env.notes.append("12 raw: make_dng.py failed (python3-numpy, python3-pil): \(error)")
            return []
        }
        let out = env.dir.appendingPathComponent("raw24.jpg")
        func develop(draft: Bool, maxSide: CGFloat?, neutral: Bool = true) throws {
            guard let filter = CIRAWFilter(imageURL: dng) else { throw BenchError("CIRAWFilter could not open the DNG") }
            if neutral { filter.boostAmount = 0 }
            filter.isDraftModeEnabled = draft
            guard var image = filter.outputImage else { throw BenchError("CIRAWFilter gave no image") }
            if let maxSide {
                let s = maxSide / max(image.extent.width, image.extent.height)
                image = image.transformed(by: CGAffineTransform(scaleX: s, y: s), highQualityDownsample: true)
            }
            try env.context.encode(image, as: .jpeg, options: [.lossyCompressionQuality: 0.9]).write(to: out)
        }
        let full = try bestOf(env.runs) { try develop(draft: false, maxSide: nil) }
        let draft = try bestOf(env.runs) { try develop(draft: true, maxSide: nil) }
        // --max-size with the default develop (tone curve on) against the full default develop.
        let fullDefault = try bestOf(env.runs) { try develop(draft: false, maxSide: nil, neutral: false) }
        let small = try bestOf(env.runs) { try develop(draft: false, maxSide: 800, neutral: false) }
        var dcraw: Timing? = nil
        var dcrawHalf: Timing? = nil
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/dcraw_emu") {
            dcraw = try Shell.time("dcraw_emu -w -o 1 -4 -q 3 -H 0 -t 0 -Z raw24.ppm raw24.dng", runs: env.runs, in: env.dir)
            dcrawHalf = try Shell.time("dcraw_emu -w -o 1 -4 -h -H 0 -t 0 -Z raw24h.ppm raw24.dng", runs: env.runs, in: env.dir)
        } else {
            env.notes.append("12 raw: dcraw_emu missing (libraw-bin): no LibRaw reference")
        }
        let mp = 24.0
        var rows = [
            Row(
                workload: "12 RAW 24 MP DNG -> JPEG, neutral, AHD", ours: .time(full), oursCPU: full.cpu, megapixels: mp,
                reference: "dcraw_emu -4 -q 3 (PPM)", referenceValue: dcraw.map(Quantity.time), referenceCPU: dcraw?.cpu,
                target: .ratioAtMost(1)),
            Row(
                workload: "12 RAW draft (half size) -> JPEG", ours: .time(draft), oursCPU: draft.cpu, megapixels: mp,
                reference: "dcraw_emu -4 -h (PPM)", referenceValue: dcrawHalf.map(Quantity.time), referenceCPU: dcrawHalf?.cpu,
                target: .info),
            Row(
                workload: "12 RAW default develop, long edge 800 -> JPEG", ours: .time(small), oursCPU: small.cpu, megapixels: nil,
                reference: "ours, default full develop", referenceValue: .time(fullDefault), referenceCPU: fullDefault.cpu,
                target: .ratioAtMost(0.3)),
        ]
        // rawpy, when a python3 on PATH has it (not a Debian package: PyPI's wheel, LibRaw 0.22).
        let rawpy = """
            python3 -c "import rawpy; r = rawpy.imread('raw24.dng'); r.postprocess(use_camera_wb=True, output_color=rawpy.ColorSpace.sRGB, \
            gamma=(1, 1), no_auto_bright=True, output_bps=16, demosaic_algorithm=rawpy.DemosaicAlgorithm.AHD, user_flip=0, \
            highlight_mode=rawpy.HighlightMode.Clip)"
            """
        if let t = try? Shell.time(rawpy, runs: env.runs, in: env.dir) {
            rows.append(
                Row(
                    workload: "12 RAW 24 MP DNG, neutral, AHD", ours: .time(full), oursCPU: full.cpu, megapixels: mp,
                    reference: "rawpy postprocess (no file)", referenceValue: .time(t), referenceCPU: t.cpu, target: .ratioAtMost(1)))
        } else {
            env.notes.append("12 raw: rawpy is not importable by python3 (pip install rawpy): no rawpy row")
        }
        return rows
    }
}
