import Foundation
import Testing
@testable import Cyanotype

// The text generators against programs that know text independently of ours: tesseract (OCR)
// reads the images back, HarfBuzz's `hb-shape` gives the fonts' advances and its visual order
// for a right-to-left word, fontconfig's `fc-match`/`fc-list` name the fonts it would pick, and
// the fonts' own `head`/`hhea` tables (read here from the files) give their vertical metrics.
// Each case that needs a tool says so and is skipped without it (`scripts/setup.sh --test`
// installs them).

/// Runs a tool; its standard output, nil when it cannot run or fails.
private func output(_ executable: String?, _ arguments: [String]) -> String? {
    guard let executable, let r = runTool(executable, arguments), r.status == 0 else { return nil }
    return r.out
}

private let tesseract = which("tesseract")
private let hbShape = which("hb-shape")
private let fcMatch = which("fc-match")
private let fcList = which("fc-list")

private let scratch: URL = {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-text-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}()

/// The file fontconfig picks for a name.
private func fontFile(_ name: String) -> String? {
    output(fcMatch, ["-f", "%{file}", name]).flatMap { $0.isEmpty ? nil : $0 }
}

/// A TrueType font's units per em and its horizontal header's ascender, descender (positive
/// below the baseline) and line gap, read from the file's `head` and `hhea` tables.
private func verticalMetrics(_ path: String) throws -> (upem: Double, ascender: Double, descender: Double, lineGap: Double) {
    let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func u16(_ o: Int) -> Int { Int(d[o]) << 8 | Int(d[o + 1]) }
    func i16(_ o: Int) -> Int { Int(Int16(bitPattern: UInt16(u16(o)))) }
    func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
    var tables: [String: Int] = [:]
    for t in 0..<u16(4) {
        let entry = 12 + 16 * t
        tables[String(decoding: d[entry..<entry + 4], as: UTF8.self)] = u32(entry + 8)
    }
    let head = try #require(tables["head"]), hhea = try #require(tables["hhea"])
    return (Double(u16(head + 18)), Double(i16(hhea + 4)), Double(-i16(hhea + 6)), Double(i16(hhea + 8)))
}

/// `hb-shape`'s glyphs for `text`, left to right: (glyph id, cluster, advance and horizontal
/// offset in font units).
private func shaped(_ path: String, _ text: String, features: String? = nil) -> [(glyph: Int, cluster: Int, advance: Int, xOffset: Int)]? {
    var args = [path, text, "--no-glyph-names"]
    if let features { args.append("--features=\(features)") }
    guard let out = output(hbShape, args) else { return nil }
    let body = out.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
    return body.split(separator: "|").compactMap { item in
        // "36=0+1270" or "690=0@-165,0+0"
        let parts = item.split(whereSeparator: { "=+@,".contains($0) }).map { Int($0) }
        guard parts.count == 3 || parts.count == 5, let g = parts[0], let c = parts[1], let a = parts.last! else { return nil }
        return (g, c, a, parts.count == 5 ? parts[2] ?? 0 : 0)
    }
}

private func textImage(_ text: String, font: String = "DejaVu Sans", size: Double = 40, padding: Double = 0, scale: Double = 1) throws -> CIImage {
    let f = try #require(CIFilter(name: "CITextImageGenerator"))
    f.setValue(text, forKey: "inputText")
    f.setValue(font, forKey: "inputFontName")
    f.setValue(size, forKey: "inputFontSize")
    f.setValue(padding, forKey: "inputPadding")
    f.setValue(scale, forKey: "inputScaleFactor")
    return try f.makeOutputImage()
}

private func attributedImage(_ text: NSAttributedString, scale: Double = 1, padding: Double = 0) throws -> CIImage {
    let f = CIFilter.attributedTextImageGenerator()
    f.text = text
    f.scaleFactor = Float(scale)
    f.padding = Float(padding)
    return try f.makeOutputImage()
}

/// Straight linear RGBA of the whole image, rows top-down.
private func pixels(_ img: CIImage, context: CIContext = floatContext) throws -> [SIMD4<Float>] {
    try renderFloat(img, img.extent, context: context)
}

/// The ink's bounding box in pixels (columns from the left, rows from the top), alpha > 0.
private func inkBox(_ img: CIImage) throws -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
    let w = Int(img.extent.width), p = try pixels(img)
    var box: (Int, Int, Int, Int)?
    for (i, v) in p.enumerated() where v.w > 0 {
        let x = i % w, y = i / w
        box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
    }
    return box
}

/// The image over white, written as PNG; tesseract's reading of it, lines without blanks at the ends.
private func ocr(_ img: CIImage) throws -> [String] {
    let e = img.extent
    let url = scratch.appendingPathComponent("ocr-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: url) }
    try CIContext().writePNGRepresentation(
        of: img.composited(over: CIImage(color: .white).cropped(to: e)), to: url,
        format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
    let text = try #require(output(tesseract, [url.path, "stdout", "--psm", "6"]), "tesseract failed")
    return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

@Suite struct TextGeneratorTests {
    static let phrases = [
        "The quick brown fox jumps over the lazy dog",
        "Pack my box with five dozen liquor jugs",
        "Sphinx of black quartz, judge my vow",
        "How vexingly quick daft zebras jump",
        "Cyanotype draws text on Linux servers",
        "Waltz, bad nymph, for quick jigs vex",
        "Bright vixens jump; dozy fowl quack",
        "Jackdaws love my big sphinx of quartz",
        "WAVY AVENUE TRAVEL",
        "Glib jocks quiz nymph to vex dwarf",
    ]

    @Test(
        "tesseract reads ten phrases back exactly, in three fonts at three sizes",
        .enabled(if: tesseract != nil, "needs tesseract (Debian tesseract-ocr; scripts/setup.sh --test)"),
        arguments: ["DejaVu Sans", "Liberation Serif", "FreeSans"])
    func ocrReadsThePhrasesBack(font: String) throws {
        for size in [20.0, 28.0, 40.0] {
            let img = try textImage(Self.phrases.joined(separator: "\n"), font: font, size: size, padding: 12)
            let read = try ocr(img)
            #expect(read == Self.phrases, "\(font) \(size): \(zip(read, Self.phrases).filter { $0 != $1 })")
        }
    }

    // MARK: Shaping

    @Test(
        "HarfBuzz's kerning: \"AV\" is narrower than its glyphs' advances, and .kern 0 turns it off",
        .enabled(if: hbShape != nil && fcMatch != nil, "needs hb-shape (libharfbuzz-bin) and fc-match"))
    func kernedPairIsNarrower() throws {
        let path = try #require(fontFile("DejaVu Sans"))
        let m = try verticalMetrics(path)
        let kerned = try #require(shaped(path, "AV")).reduce(0) { $0 + $1.advance }
        let plain = try #require(shaped(path, "AV", features: "-kern")).reduce(0) { $0 + $1.advance }
        #expect(kerned < plain)
        let px = 200.0, k = px / m.upem
        // The box is the advances' width (the ink of A and V stays within it).
        let img = try textImage("AV", size: px)
        #expect(Double(img.extent.width) == (Double(kerned) * k).rounded(.up))
        #expect(Double(img.extent.width) < Double(plain) * k - 10)
        let off = try attributedImage(NSAttributedString(string: "AV", attributes: [.font: NSFont(name: "DejaVu Sans", size: px)!, .kern: 0]))
        #expect(Double(off.extent.width) == (Double(plain) * k).rounded(.up))
    }

    @Test(
        "ligatures and composed marks come from HarfBuzz: glyphs as hb-shape gives them",
        .enabled(if: hbShape != nil && fcMatch != nil, "needs hb-shape (libharfbuzz-bin) and fc-match"))
    func ligaturesAndMarks() throws {
        let path = try #require(fontFile("DejaVu Sans"))
        for text in ["office", "e\u{301}te\u{301}", "na\u{308}ive"] {
            let reference = try #require(shaped(path, text))
            let layout = try TextLayout(StyledText(text, style: TextStyle(font: "DejaVu Sans", points: 40, color: SIMD4(0, 0, 0, 1), kern: nil)), scale: 1)
            #expect(layout.glyphs.map { Int($0.glyph) } == reference.map(\.glyph), "\(text)")
        }
        // A mark with no precomposed letter sits on its base where the font's GPOS puts it.
        let q = try #require(shaped(path, "q\u{301}"))
        let marked = try TextLayout(StyledText("q\u{301}", style: TextStyle(font: "DejaVu Sans", points: 100, color: SIMD4(0, 0, 0, 1), kern: nil)), scale: 1)
        let m = try verticalMetrics(path)
        #expect(q.count == 2 && marked.glyphs.count == 2 && q[1].advance == 0)
        #expect(abs((marked.glyphs[1].x - marked.glyphs[0].x) - Double(q[0].advance + q[1].xOffset) * 100 / m.upem) < 1e-9)
        #expect(abs(marked.width - Double(q[0].advance) * 100 / m.upem) < 1e-9)
        // "ffi" is one glyph in DejaVu Sans; a decomposed é draws as the precomposed one.
        #expect(try #require(shaped(path, "office")).count == 4)
        #expect(try pixels(textImage("e\u{301}t\u{E9}")) == (try pixels(textImage("\u{E9}te\u{301}"))))
    }

    @Test(
        "right-to-left runs come out in visual order",
        .enabled(if: hbShape != nil && fcMatch != nil, "needs hb-shape (libharfbuzz-bin) and fc-match"))
    func rightToLeftRunsInVisualOrder() throws {
        let path = try #require(fontFile("DejaVu Sans"))
        let style = TextStyle(font: "DejaVu Sans", points: 40, color: SIMD4(0, 0, 0, 1), kern: nil)
        func order(_ text: String) throws -> [UInt32] {
            let layout = try TextLayout(StyledText(text, style: style), scale: 1)
            return layout.glyphs.sorted { $0.x < $1.x }.map(\.glyph)
        }
        // A Hebrew word: the glyphs, left to right, that hb-shape gives for it.
        let word = "\u{5E9}\u{5DC}\u{5D5}\u{5DD}"  // shin lamed vav final-mem
        #expect(try order(word).map(Int.init) == (try #require(shaped(path, word))).map(\.glyph))
        // Its first letter (shin) is drawn rightmost: bidi worked by hand.
        let face = try FontLibrary.shared.face(named: "DejaVu Sans")
        let glyph = { (s: String) -> UInt32 in face.glyph(for: s.unicodeScalars.first!.value)! }
        let letters = ["\u{5DD}", "\u{5D5}", "\u{5DC}", "\u{5E9}"].map(glyph)
        #expect(try order(word) == letters)
        // In a left-to-right paragraph the Hebrew run is reversed in place ...
        let space = glyph(" ")
        #expect(try order("abc \(word) def") == ["a", "b", "c", " "].map(glyph) + letters + [space] + ["d", "e", "f"].map(glyph))
        // ... and a paragraph that starts in Hebrew is right to left: the Latin run goes left,
        // and the line sits against the right edge.
        #expect(try order("\(word) abc") == ["a", "b", "c", " "].map(glyph) + letters)
        let two = try TextLayout(StyledText("\(word)\nabc abc abc abc", style: style), scale: 1)
        #expect(two.lines[0].rightToLeft && !two.lines[1].rightToLeft)
        #expect(abs(two.lines[0].x + two.lines[0].width - two.width) < 1e-9 && two.lines[1].x == 0)
        // The image agrees: the shin's ink is at the word's right end.
        let shin = try #require(try inkBox(textImage("\u{5E9}"))), whole = try textImage(word)
        let box = try #require(try inkBox(whole))
        let right = try pixels(
            whole.cropped(to: CGRect(x: CGFloat(box.maxX - (shin.maxX - shin.minX)), y: 0, width: CGFloat(shin.maxX - shin.minX + 1), height: whole.extent.height)))
        let alone = try pixels(textImage("\u{5E9}").cropped(to: CGRect(x: shin.minX, y: 0, width: shin.maxX - shin.minX + 1, height: Int(whole.extent.height))))
        let inkRight = right.reduce(0) { $0 + $1.w }, inkAlone = alone.reduce(0) { $0 + $1.w }
        #expect(abs(inkRight - inkAlone) < 0.05 * inkAlone, "ink at the right end \(inkRight) vs a lone shin \(inkAlone)")
    }

    @Test(
        "a character the font lacks comes from a font that has it",
        .enabled(if: fcList != nil, "needs fc-list"))
    func missingGlyphsFallBack() throws {
        // Liberation Sans has no Arabic; fontconfig lists the fonts that do.
        let arabic = try #require(output(fcList, [":charset=0627", "file"]))
        let covering = Set(arabic.split(separator: "\n").map { String($0.split(separator: ":")[0]) })
        let text = "abc \u{645}\u{631}\u{62D}\u{628}\u{627}"
        let layout = try TextLayout(StyledText(text, style: TextStyle(font: "Liberation Sans", points: 30, color: SIMD4(0, 0, 0, 1), kern: nil)), scale: 1)
        #expect(!layout.glyphs.contains { $0.glyph == 0 }, "no missing-glyph boxes")
        let liberation = try FontLibrary.shared.face(named: "Liberation Sans")
        #expect(liberation.family == "Liberation Sans")
        let faces = Set(layout.glyphs.map(\.face))
        #expect(faces.contains(liberation) && faces.count == 2)
        for face in faces where face != liberation { #expect(covering.contains(face.path), "\(face.path)") }
    }

    @Test(
        "a font name no installed font answers to draws in fontconfig's default font, quietly",
        .enabled(if: fcMatch != nil, "needs fc-match"))
    func missingFontFallsBack() throws {
        let defaultFamily = try #require(output(fcMatch, ["-f", "%{family[0]}", "sans-serif"]))
        let missing = try textImage("Fallback 123", font: "NoSuchFont-Regular")
        #expect(try pixels(missing) == pixels(textImage("Fallback 123", font: defaultFamily)))
        // Apple's names map to fontconfig's stand-ins: Helvetica is what fc-match says it is.
        let helvetica = try #require(output(fcMatch, ["-f", "%{family[0]}", "Helvetica"]))
        #expect(try pixels(textImage("Hi", font: "Helvetica")) == pixels(textImage("Hi", font: helvetica)))
        #expect(try pixels(textImage("Hi", font: "HelveticaNeue")) == pixels(textImage("Hi", font: helvetica)))
        // PostScript names with a style reach the styled file.
        let bold = try FontLibrary.shared.face(named: "DejaVuSans-Bold")
        #expect(bold.path == fontFile("DejaVu Sans:bold"))
        #expect(try FontLibrary.shared.face(named: "Helvetica-Bold").path == fontFile("Helvetica:bold"))
    }

    // MARK: Extent and lines

    @Test(
        "the extent is the text's typographic box plus the padding",
        .enabled(if: hbShape != nil && fcMatch != nil, "needs hb-shape (libharfbuzz-bin) and fc-match"))
    func extentIsTheBoxPlusPadding() throws {
        let path = try #require(fontFile("DejaVu Sans"))
        let m = try verticalMetrics(path)
        let advance = Double(try #require(shaped(path, "Hxg")).reduce(0) { $0 + $1.advance })
        for (size, scale, padding) in [(40.0, 1.0, 0.0), (40.0, 1.5, 7.0), (13.0, 2.0, 3.0)] {
            let img = try textImage("Hxg", size: size, padding: padding, scale: scale)
            let k = size * scale / m.upem
            #expect(img.extent.origin == .zero)
            #expect(Double(img.extent.width) == (advance * k).rounded(.up) + 2 * padding, "\(size) \(scale)")
            #expect(Double(img.extent.height) == ((m.ascender + m.descender) * k).rounded(.up) + 2 * padding, "\(size) \(scale)")
            // The padding is clear; the ink sits inside the box.
            let box = try #require(try inkBox(img))
            #expect(Double(box.minX) >= padding && Double(box.minY) >= padding)
            #expect(Double(box.maxX) < img.extent.width - padding && Double(box.maxY) < img.extent.height - padding)
        }
        // No characters: the empty image.
        #expect(try textImage("", padding: 10).extent.isEmpty)
    }

    @Test(
        "line breaks stack lines by the fonts' metrics; alignment places them in the box",
        .enabled(if: fcMatch != nil, "needs fc-match"))
    func multipleLines() throws {
        let path = try #require(fontFile("DejaVu Sans"))
        let m = try verticalMetrics(path)
        let k = 30 / m.upem
        for text in ["Hxg\nHxg\nHxg", "Hxg\r\nHxg\u{2029}Hxg"] {
            let img = try textImage(text, size: 30)
            #expect(Double(img.extent.height) == ((3 * (m.ascender + m.descender) + 2 * m.lineGap) * k).rounded(.up))
            // Three separate bands of ink, one per line.
            let w = Int(img.extent.width)
            let rows = try pixels(img)
            let inked = (0..<Int(img.extent.height)).map { y in (0..<w).contains { rows[y * w + $0].w > 0 } }
            let bands = zip(inked, [false] + inked).filter { $0 && !$1 }.count
            #expect(bands == 3, "\(text)")
        }
        // An empty line still takes its height.
        #expect(Double(try textImage("a\n\nb", size: 30).extent.height) == ((3 * (m.ascender + m.descender) + 2 * m.lineGap) * k).rounded(.up))
        // The box is as wide as the widest line; alignment from the paragraph style.
        let wide = try textImage("a much longer line", size: 30).extent.width
        for (alignment, expectedLeft) in [(NSTextAlignment.left, 0.0), (.center, 0.5), (.right, 1.0)] {
            let style = NSMutableParagraphStyle()
            style.alignment = alignment
            let font = NSFont(name: "DejaVu Sans", size: 30)!
            let s = NSMutableAttributedString(string: "a much longer line\n", attributes: [.font: font])
            s.append(NSAttributedString(string: "HH", attributes: [.font: font, .paragraphStyle: style]))
            let img = try attributedImage(s)
            #expect(img.extent.width == wide)
            let short = try textImage("HH", size: 30).extent.width
            let layoutLeft = expectedLeft * (wide - short)
            // The second line's ink starts where its advances do, give or take a side bearing.
            let w = Int(img.extent.width), h = Int(img.extent.height)
            let p = try pixels(img)
            let lower = (2 * h / 3..<h).flatMap { y in (0..<w).filter { p[y * w + $0].w > 0.5 } }
            let left = Double(try #require(lower.min()))
            #expect(abs(left - layoutLeft) < 5, "\(alignment): line starts at \(left), expected about \(layoutLeft)")
        }
    }

    // MARK: Attributed runs

    @Test func attributedRunsKeepTheirColoursAndSizes() throws {
        let s = NSMutableAttributedString(string: "HH", attributes: [.font: NSFont(name: "DejaVu Sans", size: 40)!, .foregroundColor: CIColor.red])
        s.append(NSAttributedString(string: "HH", attributes: [.font: UIFont(name: "DejaVu Sans", size: 20)!, .foregroundColor: CIColor(red: 0, green: 0, blue: 1)]))
        let img = try attributedImage(s)
        let w = Int(img.extent.width), h = Int(img.extent.height)
        let p = try pixels(img)
        let big = try textImage("HH", size: 40).extent.width  // where the small run starts
        var red = (top: h, bottom: 0, count: 0), blue = (top: h, bottom: 0, count: 0)
        for y in 0..<h {
            for x in 0..<w where p[y * w + x].w > 0.9 {
                let c = p[y * w + x]
                if Double(x) < big {
                    #expect(c.x > 0.99 && c.y < 0.01 && c.z < 0.01, "red run at \(x),\(y): \(c)")
                    red = (min(red.top, y), max(red.bottom, y), red.count + 1)
                } else {
                    #expect(c.z > 0.99 && c.x < 0.01 && c.y < 0.01, "blue run at \(x),\(y): \(c)")
                    blue = (min(blue.top, y), max(blue.bottom, y), blue.count + 1)
                }
            }
        }
        #expect(red.count > 0 && blue.count > 0)
        // One baseline; the big H is twice as tall.
        #expect(abs(red.bottom - blue.bottom) <= 1)
        let redHeight = Double(red.bottom - red.top + 1), blueHeight = Double(blue.bottom - blue.top + 1)
        #expect(abs(redHeight - 2 * blueHeight) <= 2, "\(redHeight) vs \(blueHeight)")
        // The scale factor scales every run: twice the pixels.
        let twice = try attributedImage(s, scale: 2)
        #expect(abs(twice.extent.width - 2 * img.extent.width) <= 2 && abs(twice.extent.height - 2 * img.extent.height) <= 2)
    }

    @Test func attributeErrorsNameTheAttribute() throws {
        let s = NSMutableAttributedString(string: "ab")
        s.addAttribute(.font, value: "Helvetica", range: NSRange(location: 1, length: 1))
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIAttributedTextImageGenerator", key: "inputText",
                reason: "the attribute NSFont of characters 1..<2 is String; expected an NSFont (UIFont)")
        ) {
            try attributedImage(s)
        }
        let nan = NSAttributedString(string: "ab", attributes: [.kern: Double.nan])
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIAttributedTextImageGenerator", key: "inputText",
                reason: "the attribute NSKern of characters 0..<2 is NSNumber; expected a finite number of points")
        ) {
            try attributedImage(nan)
        }
        // A plain String is drawn in the defaults (Helvetica 12, black).
        let f = CIFilter(name: "CIAttributedTextImageGenerator")!
        f.setValue("plain", forKey: "inputText")
        #expect(try pixels(f.makeOutputImage()) == pixels(textImage("plain", font: "Helvetica", size: 12)))
    }

    // MARK: Bad input, as the rest of the catalogue

    @Test func badInputsAreTypedErrorsOrDeclaredLimits() throws {
        let f = CIFilter.textImageGenerator()
        #expect(f.outputImage == nil)
        #expect(throws: CIFilterError.invalidValue(filter: "CITextImageGenerator", key: "inputText", reason: "no text to draw: set it to a String")) {
            try f.makeOutputImage()
        }
        f.text = "Size"
        f.fontSize = .nan
        #expect(f.outputImage == nil)
        #expect(throws: CIFilterError.nonFinite(filter: "CITextImageGenerator", key: "inputFontSize")) { try f.makeOutputImage() }
        f.fontSize = 20
        f.scaleFactor = .infinity
        #expect(throws: CIFilterError.nonFinite(filter: "CITextImageGenerator", key: "inputScaleFactor")) { try f.makeOutputImage() }
        f.setValue(42, forKey: "inputText")
        f.scaleFactor = 1
        #expect(throws: CIFilterError.wrongType(filter: "CITextImageGenerator", key: "inputText", expected: "a String", got: "Int")) {
            try f.makeOutputImage()
        }
        // Negative sizes are Apple's minimum, 0: nothing but the padding.
        #expect(try textImage("Size", size: -5, padding: 3).extent == CGRect(x: 0, y: 0, width: 6, height: 6))
        #expect(try textImage("Size", size: 0).extent.isEmpty)
        #expect(try textImage("Size", size: 20, scale: -1).extent.isEmpty)
        // Beyond our limits the filter draws at the limit.
        #expect(try textImage(".", size: 1e9).extent == textImage(".", size: 1024).extent)
        #expect(try textImage(".", size: 100, scale: 1e6).extent == textImage(".", size: 100, scale: 16).extent)
        #expect(CIFilter.descriptor(forFilterName: "CITextImageGenerator")?.input("inputFontSize")?.effectiveMaximum == 1024)
        // Kerning that throws the text past any image size is an error, not a crash.
        let far = NSAttributedString(string: "far", attributes: [.kern: 1e300])
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIAttributedTextImageGenerator", key: "inputText",
                reason: "the text's image would be unbounded; an image is at most 1073741824 pixels on a side")
        ) {
            try attributedImage(far, scale: 16)
        }
        #expect(throws: CIFilterError.self) { try attributedImage(NSAttributedString(string: "far", attributes: [.kern: 1e12])) }
        // Glyph bitmaps are drawn when the image is made, within a budget.
        #expect(
            TextError.glyphsTooLarge(budget: 256 << 20).description
                == "the text's glyphs would take more than 256 MB at this size; use a smaller font size or scale factor")
        // A tab is a space; other control characters draw nothing (no missing-glyph boxes).
        #expect(try pixels(textImage("a\tb", size: 20)) == pixels(textImage("a b", size: 20)))
        #expect(try pixels(textImage("a\u{1}b\u{7F}", size: 20)) == pixels(textImage("ab", size: 20)))
        // Padding is an integer from 0 to 200.
        #expect(try textImage("a", size: 0, padding: 2.6).extent.width == 6)
        #expect(try textImage("a", size: 0, padding: 900).extent.width == 400)
    }

    @Test("any Unicode text draws without a crash: bidi controls, lone marks, unassigned and private characters")
    func arbitraryUnicodeDraws() throws {
        // SplitMix64, seeded: the same strings every run.
        var state: UInt64 = 0x5EED_7E47
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let ranges: [ClosedRange<UInt32>] = [
            0x0...0x7F, 0x300...0x36F, 0x590...0x6FF, 0x200B...0x202E, 0x2066...0x2069,
            0x0900...0x097F, 0x4E00...0x4E20, 0xE000...0xE010, 0xFFF0...0xFFFF, 0x1F300...0x1F320, 0x10FFF0...0x10FFFF,
        ]
        for _ in 0..<60 {
            var text = ""
            for _ in 0..<Int(next() % 24) {
                let r = ranges[Int(next() % UInt64(ranges.count))]
                if let s = Unicode.Scalar(r.lowerBound + UInt32(next() % UInt64(r.count))) { text.unicodeScalars.append(s) }
            }
            let f = CIFilter.textImageGenerator()
            f.text = text
            f.fontName = ["DejaVu Sans", "Liberation Serif", "FreeMono"][Int(next() % 3)]
            f.fontSize = Float(next() % 40)
            let img = try f.makeOutputImage()
            if !img.extent.isEmpty { _ = try pixels(img) }
        }
    }

    @Test func portableFontAndParagraphTypes() {
        #expect(NSFont(name: " ", size: 12) == nil)
        #expect(NSFont(name: "Helvetica", size: 0)?.pointSize == 12)
        #expect(NSFont(name: "Helvetica", size: .nan)?.pointSize == 12)
        #expect(UIFont(name: "Avenir-Heavy", size: 30)?.fontName == "Avenir-Heavy")
        #expect(NSFont.systemFont(ofSize: 9).withSize(11) == NSFont.systemFont(ofSize: 11))
        #expect(NSAttributedString.Key.font.rawValue == "NSFont" && NSAttributedString.Key.foregroundColor.rawValue == "NSColor")
        #expect(NSAttributedString.Key.kern.rawValue == "NSKern" && NSAttributedString.Key.paragraphStyle.rawValue == "NSParagraphStyle")
        let style = NSParagraphStyle.default.mutableCopy()
        style.alignment = .right
        #expect(style.alignment == .right && NSParagraphStyle.default.alignment == .natural)
        #expect(CIFilter.textImageGenerator().fontName == "HelveticaNeue")
        #expect(CIFilter.attributedTextImageGenerator().text.length == 0)
    }

    // MARK: The engine's properties

    @Test func tiledRendersEqualWholeRendersAndThreadsAgree() throws {
        let s = NSMutableAttributedString(string: "Tiles \u{5E9}\u{5DC}\u{5D5}\u{5DD} AV\n", attributes: [.font: NSFont(name: "Liberation Serif", size: 23)!])
        s.append(NSAttributedString(string: "second line", attributes: [.foregroundColor: CIColor(red: 0.2, green: 0.6, blue: 0.1, alpha: 0.8)]))
        let img = try attributedImage(s, scale: 1.3, padding: 2)
        let whole = try pixels(img)
        let tiled = try pixels(
            img, context: CIContext(options: [.tileSize: 7, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false]))
        #expect(whole == tiled)
        // Many images made and drawn at once (fonts opened, shaped and their glyphs drawn for
        // the first time, caches shared) give the bytes each gives again alone.
        let sizes = (0..<12).map { 9.0 + Double($0) * 3.5 }
        let fonts = ["DejaVu Serif", "FreeSans", "Liberation Mono", "FreeSerif"]
        @Sendable func draw(_ i: Int) throws -> [SIMD4<Float>] {
            try pixels(textImage("Concurrent \(sizes[i]) AVAW \u{5E9}\u{5DC}\u{5D5}\u{5DD}", font: fonts[i % fonts.count], size: sizes[i]))
        }
        final class Results: @unchecked Sendable { var values = [[SIMD4<Float>]?](repeating: nil, count: 12); let lock = NSLock() }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: sizes.count) { i in
            let v = try? draw(i)
            results.lock.lock(); results.values[i] = v; results.lock.unlock()
        }
        for i in sizes.indices { #expect(try results.values[i] == draw(i), "size \(sizes[i])") }
    }
}

@Suite struct PlatformBoundFilterTests {
    static let needs = [
        "CICoreMLModelFilter": "Apple's Core ML framework to run an MLModel",
        "CIPersonSegmentation": "Apple's Vision framework and its person-segmentation model",
        "CISaliencyMapFilter": "Apple's Vision framework and its saliency model",
        "CIDepthBlurEffect": "the depth, mattes and AVCameraCalibrationData of an Apple camera capture and Apple's portrait pipeline",
        "CICameraCalibrationLensCorrection": "AVFoundation's AVCameraCalibrationData (a capture's lens-distortion tables)",
    ]

    @Test func theyAreListedWithAppleAttributesAndSayWhatTheyNeed() throws {
        let all = CIFilter.filterNames(inCategory: nil)
        let photo = image(testPixels(width: 8, height: 6), 8, 6)
        for (name, needs) in Self.needs {
            #expect(all.contains(name))
            let f = try #require(CIFilter(name: name))
            #expect(f.attributes[kCIAttributeFilterName] as? String == name)
            if f.inputKeys.contains(kCIInputImageKey) { f.setValue(photo, forKey: kCIInputImageKey) }
            #expect(f.outputImage == nil)
            #expect(throws: CIFilterError.unavailable(filter: name, needs: needs)) { try f.makeOutputImage() }
        }
        #expect(
            CIFilterError.unavailable(filter: "CISaliencyMapFilter", needs: Self.needs["CISaliencyMapFilter"]!).description
                == "CISaliencyMapFilter cannot run here: it needs Apple's Vision framework and its saliency model, found only on Apple's platforms")
        // Apple's typed protocols, where Apple has them.
        let segmentation = CIFilter.personSegmentation()
        segmentation.qualityLevel = 2
        #expect(segmentation.qualityLevel == 2 && segmentation.value(forKey: "inputQualityLevel") as? Int == 2)
        #expect(CIFilter.coreMLModel().headIndex == 0 && CIFilter.saliencyMap().inputImage == nil)
    }
}
