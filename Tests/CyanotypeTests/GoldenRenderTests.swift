import CCyanotypeKernels
import Foundation
import Testing
@testable import Cyanotype

// The golden table: every built-in filter without a double-precision reference, rendered
// with its defaults and with two other settings on fixed inputs, hashed as RGBAf and as RGBA8.
// The filters with a closed-form reference (`referenceCheckedFilters`) are checked against it
// on every kernel path instead (KernelPathTests.swift) and have no lines here. Restructuring
// the engine must not change a pixel, so this table must hold bit for bit; a change to it
// needs a reason in the commit that makes it. `CYANOTYPE_RECORD_GOLDEN=1 swift test --filter
// GoldenRenderTests` rewrites the table.
//
// Float bits depend on which pixel loops run, so the table records the path it was made on
// and the test selects that path (`cyan_select_vector_bits`) where the CPU has it; on a CPU
// without it the test records a known issue naming the path instead of passing silently.

private let tablePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/GoldenRenders.txt")

/// The path the table was recorded on, as a `KernelPath`: "avx2" (the vector loops, 256 or
/// 512 bits: they give the same bits) or "portable".
private func recordedKernelPath() -> KernelPath? {
    switch recordedPath() {
    case "avx2"?: return .avx2
    case "portable"?: return .portable
    default: return nil
    }
}

private func recordedPath() -> String? {
    guard let text = try? String(contentsOf: tablePath, encoding: .utf8) else { return nil }
    return text.split(separator: "\n").first { $0.hasPrefix("# path ") }.map { String($0.dropFirst(7)) }
}

/// FNV-1a, 64 bits: stable across runs and platforms (Swift's `Hasher` is seeded per process).
private func fnv1a(_ data: Data) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in data { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return String(h, radix: 16)
}

private let width = 48, height = 40

/// Second image for every other image input: a different pattern, translucent.
private func secondPixels() -> [UInt8] {
    var p = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            p[i] = UInt8((x * 37 + y * 11) % 256)
            p[i + 1] = UInt8(255 - (y * 255) / (height - 1))
            p[i + 2] = UInt8(((x / 6 + y / 5) % 2) * 200 + 30)
            p[i + 3] = UInt8(96 + (x * 5 + y * 3) % 160)
        }
    }
    return p
}

/// The inputs are the patterns enlarged 8x (384x320), so Apple's default centres and corners
/// (around 150...600 pixels) fall on or near them.
private let scale = 8.0
private let photo = image(testPixels(width: width, height: height), width, height).transformed(by: CGAffineTransform(scaleX: scale, y: scale))
private let other = image(secondPixels(), width, height).transformed(by: CGAffineTransform(scaleX: scale, y: scale))
/// Lookup tables (gradients, palettes, histograms) are small images: 16 x 1.
private let table = image(Array(secondPixels()[0..<(16 * 4)]), 16, 1)
private let message = Data("Cyanotype 0123".utf8)
private let mesh: [CIVector] = [CIVector(x: 10, y: 10, z: 300, w: 200), CIVector(x: 300, y: 200, z: 150, w: 40), CIVector(x: 150, y: 40, z: 10, w: 10)]

/// The settings each filter is rendered with: 0 = defaults, 1 and 2 = every number, point,
/// colour, offset, flag and transform moved to a fixed non-default value.
private func configure(_ filter: CIFilter, _ descriptor: FilterDescriptor, setting: Int) {
    let t = setting == 1 ? 0.3 : 0.7
    for input in descriptor.inputs {
        if input.isImage {
            let isTable =
                input.key.contains("Gradient") || input.key.contains("Palette")
                || (descriptor.name == "CIHistogramDisplayFilter" && input.key == kCIInputImageKey)
            filter.setValue(isTable ? table : input.key == kCIInputImageKey ? photo : other, forKey: input.key)
            continue
        }
        if input.key == "inputMessage" { filter.setValue(message, forKey: input.key); continue }
        if input.key == "inputMesh" { filter.setValue(mesh, forKey: input.key); continue }
        // A cube's dimension must match its data: left at the default.
        if setting == 0 || input.key == "inputCubeDimension" { continue }
        switch (input.className, input.attributeType) {
        case ("NSNumber", "CIAttributeTypeBoolean"):
            if setting == 2, case .number(let d)? = input.defaultValue { filter.setValue(d == 0 ? 1 : 0, forKey: input.key) }
        case ("NSNumber", let type):
            var value: Double
            if let lo = input.sliderMinimum, let hi = input.sliderMaximum {
                value = lo + (hi - lo) * t
            } else if let lo = input.minimum, let hi = input.maximum {
                value = lo + (hi - lo) * t
            } else if case .number(let d)? = input.defaultValue {
                value = d == 0 ? t : d * (setting == 1 ? 0.5 : 1.5)
            } else {
                continue
            }
            if type == "CIAttributeTypeInteger" || type == "CIAttributeTypeCount" { value = value.rounded() }
            filter.setValue(value, forKey: input.key)
        case ("CIVector", "CIAttributeTypePosition"):
            filter.setValue(CIVector(x: Double(width) * scale * t, y: Double(height) * scale * (1 - t)), forKey: input.key)
        case ("CIVector", "CIAttributeTypeOffset"):
            filter.setValue(setting == 1 ? CIVector(x: 2, y: 1) : CIVector(x: -1, y: 3), forKey: input.key)
        case ("CIColor", _):
            filter.setValue(setting == 1 ? CIColor(red: 0.8, green: 0.3, blue: 0.2) : CIColor(red: 0.1, green: 0.6, blue: 0.9, alpha: 0.7), forKey: input.key)
        case ("NSAffineTransform", _):
            let m =
                setting == 1
                ? CGAffineTransform(a: 0.7 * cos(0.3), b: 0.7 * sin(0.3), c: -0.7 * sin(0.3), d: 0.7 * cos(0.3), tx: 5, ty: -3)
                : CGAffineTransform(a: 1.3, b: 0, c: 0.4, d: 1.1, tx: -4, ty: 2)
            filter.setValue(m, forKey: input.key)
        default:
            continue
        }
    }
}

/// The rectangles hashed: a small output whole (reductions, barcodes), else four 32x32
/// windows of it: across the lower-left corner, around Apple's usual centre (150, 150), in the
/// middle, and across the upper-right corner.
private func renderRects(_ output: CIImage) -> [CGRect] {
    let e = output.extent
    if !e.isInfinite && e.width * e.height <= 128 * 128 { return e.isEmpty ? [] : [e] }
    let windows = [
        CGRect(x: -16, y: -16, width: 32, height: 32), CGRect(x: 134, y: 134, width: 32, height: 32),
        CGRect(x: 250, y: 170, width: 32, height: 32), CGRect(x: 368, y: 304, width: 32, height: 32),
    ]
    return windows.map { e.isInfinite ? $0 : $0.intersection(e) }.filter { !$0.isNull && !$0.isEmpty }
}

private let goldenFloatContext = CIContext(options: [
    .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false,
])
private let goldenByteContext = CIContext(options: [.cacheIntermediates: false])

/// One line of the table: "name setting floatHash byteHash", or a reason where nothing renders.
private func goldenLine(_ name: String, setting: Int) -> String {
    guard let filter = CIFilter(name: name), let descriptor = filter.builtin?.descriptor else { return "\(name) \(setting) no-filter" }
    configure(filter, descriptor, setting: setting)
    guard let output = filter.outputImage else { return "\(name) \(setting) nil" }
    let rects = renderRects(output)
    if rects.isEmpty { return "\(name) \(setting) empty" }
    func hash(_ context: CIContext, _ format: CIFormat) -> String {
        var bytes = Data()
        for rect in rects {
            guard let r = try? context.renderToData(output, from: rect, format: format) else { return "error" }
            bytes.append(r.data)
        }
        return fnv1a(bytes)
    }
    let where_ = rects.map { "\(Int($0.minX)),\(Int($0.minY)),\(Int($0.width))x\(Int($0.height))" }.joined(separator: ";")
    return "\(name) \(setting) \(where_) \(hash(goldenFloatContext, .RGBAf)) \(hash(goldenByteContext, .RGBA8))"
}

extension KernelPathSuites {
    @Suite struct GoldenRenderTests {
        @Test("every built-in filter without a reference renders bit for bit as recorded")
        func goldenTableHolds() throws {
            let recording = ProcessInfo.processInfo.environment["CYANOTYPE_RECORD_GOLDEN"] == "1"
            let path = recordedKernelPath() ?? .avx2
            defer { _ = cyan_select_vector_bits(-1) }
            guard cyan_select_vector_bits(path.bits) == path.bits else {
                withKnownIssue("the golden table was recorded on the \(path.name) pixel loops, which this CPU lacks") {
                    Issue.record("golden table not checked: no \(path.name) path here")
                }
                return
            }
            // Built-ins only: other suites register filters of their own while this one runs.
            let builtins = CIFilter.filterNames(inCategory: nil).filter { CIFilter(name: $0)?.builtin != nil }
            let names = builtins.filter { !referenceCheckedFilters.contains($0) }
            #expect(Set(builtins).isSuperset(of: referenceCheckedFilters), "\(referenceCheckedFilters.subtracting(builtins).sorted())")
            #expect(builtins.count == 247, "the README's Filters (247)")
            #expect(names.count == builtins.count - referenceCheckedFilters.count)
            let lines = names.flatMap { name in (0...2).map { goldenLine(name, setting: $0) } }
            if recording {
                let text =
                    ([
                        "# Golden renders: filter, setting, rect, FNV-1a of RGBAf (extended linear sRGB) and of RGBA8 (sRGB)",
                        "# Only filters without a double-precision reference: the others (referenceCheckedFilters) are checked against their formulas on every kernel path",
                        "# path \(path.name)",
                    ] + lines)
                    .joined(separator: "\n") + "\n"
                try text.write(to: tablePath, atomically: true, encoding: .utf8)
                return
            }
            let text = try String(contentsOf: tablePath, encoding: .utf8)
            let recorded = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            let byKey = Dictionary(
                recorded.map { line -> (String, String) in
                    let parts = line.split(separator: " ")
                    return ("\(parts[0]) \(parts[1])", line)
                }, uniquingKeysWith: { a, _ in a })
            // No hashes for the filters checked against a reference.
            let pinnedTwice = byKey.keys.filter { referenceCheckedFilters.contains(String($0.split(separator: " ")[0])) }.sorted()
            #expect(pinnedTwice.isEmpty, "hashed although checked against a reference: \(pinnedTwice)")
            var changed: [String] = []
            for line in lines {
                let parts = line.split(separator: " ")
                let key = "\(parts[0]) \(parts[1])"
                if byKey[key] != line { changed.append("now:  \(line)\n  was: \(byKey[key] ?? "(absent)")") }
            }
            #expect(changed.isEmpty, "\(changed.count) golden renders changed:\n\(changed.joined(separator: "\n"))")
            // Every recorded filter still exists (a dropped filter is a change too).
            let current = Set(lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") })
            let missing = byKey.keys.filter { !current.contains($0) }.sorted()
            #expect(missing.isEmpty, "recorded but no longer rendered: \(missing)")
        }
    }
}
