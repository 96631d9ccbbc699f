import Foundation
import Testing
@testable import Cyanotype

/// Two lines of capitals drawn by CITextImageGenerator on a photo-like background: the
/// picture and where the test put each line's image (Core Image coordinates).
private func textScene() throws -> (image: CIImage, lines: [(text: String, rect: CGRect)]) {
    let width = 800, height = 300
    let background = greyImage(texturedBackground(width: width, height: height, seed: 404, base: 195, spread: 25), width: width, height: height, noise: 5, seed: 405)
    var picture = background
    var placed: [(String, CGRect)] = []
    for (text, size, origin) in [("CYANOTYPE FINDS TEXT", 48.0, CGPoint(x: 60, y: 190)), ("ON A PHOTO", 40.0, CGPoint(x: 220, y: 60))] {
        let f = try #require(CIFilter(name: "CITextImageGenerator"))
        f.setValue(text, forKey: "inputText")
        f.setValue("DejaVu Sans", forKey: "inputFontName")
        f.setValue(size, forKey: "inputFontSize")
        let glyphs = try #require(f.outputImage).transformed(by: CGAffineTransform(translationX: origin.x, y: origin.y))
        picture = glyphs.composited(over: picture)
        placed.append((text, glyphs.extent))
    }
    return (picture.cropped(to: background.extent), placed)
}

/// tesseract's word boxes (`--psm 11`, sparse text) in Core Image coordinates, with their text;
/// nil when tesseract is not installed.
private func tesseractWords(_ image: CIImage) throws -> [(text: String, rect: CGRect)]? {
    guard let tesseract = firstExecutable(["/usr/bin/tesseract", "/usr/local/bin/tesseract"]) else { return nil }
    let url = scratchPNG("text")
    defer { try? FileManager.default.removeItem(at: url) }
    try writeTestPNG(image, to: url)
    let r = try #require(runTool(tesseract, [url.path, "-", "--psm", "11", "tsv"]))
    try #require(r.status == 0)
    let h = image.extent.height
    return r.out.split(separator: "\n").dropFirst().compactMap { line in
        let c = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard c.count >= 12, c[0] == "5", let l = Double(c[6]), let t = Double(c[7]), let w = Double(c[8]), let hh = Double(c[9]), let conf = Double(c[10]), conf > 50
        else { return nil }
        let text = c[11].trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        return (text, CGRect(x: l, y: h - t - hh, width: w, height: hh))
    }
}

@Suite struct DetectorTextTests {
    @Test func eachLineIsOneRegionInsideWhereItWasDrawnWithItsLettersAsSubFeatures() throws {
        let scene = try textScene()
        let detector = try #require(CIDetector(ofType: CIDetectorTypeText, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyHigh]))
        let regions = try detector.detectFeatures(in: scene.image, options: [CIDetectorReturnSubFeatures: true]).compactMap { $0 as? CITextFeature }
        try #require(regions.count == 2)
        for (region, line) in zip(regions, scene.lines) {
            #expect(region.type == CIFeatureTypeText)
            // The ink lies inside the line's image and spans most of its width.
            #expect(line.rect.insetBy(dx: -2, dy: -2).contains(region.bounds), "\(region.bounds) outside \(line.rect)")
            #expect(region.bounds.width > 0.9 * line.rect.width)
            // One character per letter (capitals: one stroke each), spaces none; two kerned
            // letters that touch (DejaVu's "TY") are one.
            let letters = line.text.filter { $0 != " " }.count
            let count = region.subFeatures?.count ?? 0
            #expect(count <= letters && count >= letters - 2, "\(line.text): \(count) characters")
            #expect(region.topLeft.y > region.bottomLeft.y && region.topRight.x > region.topLeft.x)
        }
        // Without the option, no characters.
        #expect(detector.features(in: scene.image).allSatisfy { ($0 as? CITextFeature)?.subFeatures == nil })
    }

    @Test func regionsAgreeWithTesseractsWordBoxes() throws {
        let scene = try textScene()
        guard let words = try tesseractWords(scene.image) else {
            Issue.record("tesseract (Debian tesseract-ocr) is not installed: scripts/setup.sh --test installs it")
            return
        }
        #expect(words.count >= 5, "tesseract read \(words.map(\.text))")
        let regions = CIDetector(ofType: CIDetectorTypeText, context: nil)!.features(in: scene.image).map(\.bounds)
        // Every word tesseract reads lies in one of our regions ...
        for word in words {
            #expect(regions.contains { $0.insetBy(dx: -4, dy: -4).contains(word.rect) }, "\(word.text) \(word.rect) in none of \(regions)")
        }
        // ... and each region is covered by the words in it (the box of their union).
        for region in regions {
            let inside = words.filter { region.insetBy(dx: -4, dy: -4).contains($0.rect) }.map(\.rect)
            let union = inside.dropFirst().reduce(inside.first ?? .null) { $0.union($1) }
            let overlap = union.intersection(region)
            let iou = overlap.isNull ? 0 : overlap.width * overlap.height / (region.width * region.height + union.width * union.height - overlap.width * overlap.height)
            #expect(iou > 0.8, "region \(region) vs tesseract's words \(union)")
        }
    }

    @Test func aPictureWithoutTextHasNoRegion() {
        let img = greyImage(texturedBackground(width: 400, height: 300, seed: 8), width: 400, height: 300, noise: 6, seed: 9)
        #expect(CIDetector(ofType: CIDetectorTypeText, context: nil)!.features(in: img).isEmpty)
    }
}
