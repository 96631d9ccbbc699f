import Foundation

// The text generators: text set with Debian's text stack (fontconfig, FriBidi, HarfBuzz,
// FreeType; see Text/), black (or the attributed colours) on a clear background, extent origin
// (0, 0).

extension FilterInputLimit {
    static let textFontSize = FilterInputLimit(maximum: 1024, reason: "each glyph's bitmap is drawn when the image is made, and past 1024 points those bitmaps outgrow memory")
    static let textScaleFactor = FilterInputLimit(maximum: 16, reason: "each glyph's bitmap is drawn when the image is made, and past 16 times those bitmaps outgrow memory")
}

extension BuiltinFilters {
    /// CITextImageGenerator: Renders a plain string with a named font and size to an image.
    static let textImageGenerator = BuiltinFilter(
        FilterDescriptor(
            "CITextImageGenerator", "Text Image Generator", "Renders a plain string with a named font and size to an image.",
            categories: [.builtIn, .generator, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "textImageGenerator",
            doc: """
                `inputText` set in one font, black on clear, with anti-aliasing.
                Shaped by HarfBuzz (kerning, ligatures, combining marks, Arabic joining), ordered by the
                Unicode bidirectional algorithm (FriBidi), so right-to-left runs read in visual order;
                a character the font lacks is drawn from the first installed font that has it, in
                fontconfig's order of preference. Line breaks in the text start new lines (left-aligned
                in a left-to-right paragraph, right-aligned in a right-to-left one); lines are not
                wrapped. The extent is (0, 0) and the text's box plus `inputPadding` pixels on every
                side; the text's box is its typographic bounds (each line as wide as its advances and as
                tall as its fonts' ascent and descent, lines spaced by the fonts' line gap), grown to any
                ink that reaches outside them. Text with no characters gives the empty image. Glyphs are
                at most 4096 pixels per em (a larger size times scale is drawn at 4096).
                """,
            inputs: [
                .other("NSString", "inputText", "Text", nil, "The text: a String (or NSString)."),
                .other(
                    "NSString", "inputFontName", "Font Name", nil, default: .string("HelveticaNeue"),
                    """
                    The font: a PostScript name ("DejaVuSans-Bold"), a full or family name
                    ("Liberation Serif"), or a family with a style ("Helvetica-BoldOblique"), found through
                    fontconfig, whose aliases stand in for Apple's fonts (Helvetica and Arial are Liberation
                    Sans, Times Liberation Serif, Courier Liberation Mono; HelveticaNeue, the default, is
                    read as Helvetica). A name no installed font answers to falls back to fontconfig's
                    default sans-serif font.
                    """),
                .number("inputFontSize", "Font Size", .scalar, default: 12, min: 0, slider: 9...128, limit: .textFontSize, "The size in points: pixels per em at scale factor 1."),
                .number(
                    "inputScaleFactor", "Scale Factor", .scalar, default: 1, min: 0, slider: 1...4, limit: .textScaleFactor,
                    "Multiplies the font size (a scale of 2 draws Retina-sized text)."),
                .number("inputPadding", "Padding", .integer, default: 0, min: 0, max: 200, slider: 0...50, "Clear pixels added on every side of the text's box (not scaled)."),
            ])
    ) { args throws(CIFilterError) in
        let name = args.descriptor.name
        guard args.values["inputText"] != nil else {
            throw .invalidValue(filter: name, key: "inputText", reason: "no text to draw: set it to a String")
        }
        let text = try args.string("inputText")
        let style = TextStyle(
            font: try args.string("inputFontName"), points: try args.number("inputFontSize"),
            color: SIMD4(0, 0, 0, 1), kern: nil)
        return try textImage(StyledText(text, style: style), args)
    }

    /// CIAttributedTextImageGenerator: Renders an attributed string to an image.
    static let attributedTextImageGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIAttributedTextImageGenerator", "Attributed Text Image Generator", "Renders an attributed string to an image.",
            categories: [.builtIn, .generator, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "attributedTextImageGenerator",
            doc: """
                An attributed string set as CITextImageGenerator sets
                text, each run in its own font, size and colour: `.font` (an `NSFont`/`UIFont`; absent:
                Helvetica 12, here Liberation Sans), `.foregroundColor` (a `CIColor`; absent: black),
                `.kern` (points added after every character, the font's pair kerning off, as in Core
                Text; absent: the font's kerning) and `.paragraphStyle` (an `NSParagraphStyle`: its
                alignment places each line in the text's box, and its base writing direction orders the
                paragraph; read from the paragraph's first character). Other attributes are ignored.
                Font sizes are limited to 1024 points, as CITextImageGenerator's.
                """,
            inputs: [
                .other("NSAttributedString", "inputText", "Text", nil, "The text: an NSAttributedString (a plain String is drawn in the defaults)."),
                .number("inputScaleFactor", "Scale Factor", .scalar, default: 1, min: 0, slider: 1...4, limit: .textScaleFactor, "Multiplies every run's font size and kerning."),
                .number("inputPadding", nil, .integer, default: 0, min: 0, max: 200, slider: 0...50, "Clear pixels added on every side of the text's box (not scaled)."),
            ])
    ) { args throws(CIFilterError) in
        let name = args.descriptor.name
        guard let value = args.values["inputText"] else {
            throw .invalidValue(filter: name, key: "inputText", reason: "no text to draw: set it to an NSAttributedString")
        }
        let styled: StyledText
        switch value {
        case let attributed as NSAttributedString: styled = try styledText(attributed, filter: name)
        case let plain as String: styled = StyledText(plain, style: defaultAttributedStyle)
        default: throw .wrongType(filter: name, key: "inputText", expected: "an NSAttributedString", got: typeName(value))
        }
        return try textImage(styled, args)
    }

    /// Core Text's defaults for an attributed string's runs: Helvetica 12, black.
    static let defaultAttributedStyle = TextStyle(font: "Helvetica", points: 12, color: SIMD4(0, 0, 0, 1), kern: nil)

    private static func textImage(_ text: StyledText, _ args: FilterArguments) throws(CIFilterError) -> CIImage {
        guard !text.scalars.isEmpty else { return CIImage.empty() }
        let scale = try args.number("inputScaleFactor")
        let padding = Int(try args.number("inputPadding").rounded())
        do throws(TextError) {
            return try TextStage(try TextLayout(text, scale: scale), padding: padding).image()
        } catch {
            throw .invalidValue(filter: args.descriptor.name, key: "inputText", reason: error.description)
        }
    }

    /// The runs of an attributed string as styles (see CIAttributedTextImageGenerator).
    static func styledText(_ attributed: NSAttributedString, filter: String) throws(CIFilterError) -> StyledText {
        var styled = StyledText()
        var failure: CIFilterError?
        let whole = NSRange(location: 0, length: attributed.length)
        let string = NSString(string: attributed.string)
        // Paragraph styles apply per paragraph, from its first character.
        var paragraphStyle = NSParagraphStyle.default
        var atParagraphStart = true
        attributed.enumerateAttributes(in: whole, options: []) { attributes, range, stop in
            func fail(_ key: NSAttributedString.Key, _ expected: String, _ value: Any) {
                failure = .invalidValue(
                    filter: filter, key: "inputText",
                    reason: "the attribute \(key.rawValue) of characters \(range.location)..<\(range.location + range.length) is \(typeName(value)); expected \(expected)")
                stop.pointee = true
            }
            var style = defaultAttributedStyle
            if let v = attributes[.font] {
                guard let font = v as? NSFont else { return fail(.font, "an NSFont (UIFont)", v) }
                style.font = font.fontName
                style.points = FilterInputLimit.textFontSize.clamped(Double(font.pointSize))
            }
            if let v = attributes[.foregroundColor] {
                guard let color = v as? CIColor else { return fail(.foregroundColor, "a CIColor", v) }
                guard color.components.allSatisfy(\.isFinite) else { return fail(.foregroundColor, "a finite colour", v) }
                style.color = color.workingValue
            }
            if let v = attributes[.kern] {
                guard let k = numberValue(v), k.isFinite else { return fail(.kern, "a finite number of points", v) }
                style.kern = k
            }
            var paragraph: NSParagraphStyle?
            if let v = attributes[.paragraphStyle] {
                guard let p = v as? NSParagraphStyle else { return fail(.paragraphStyle, "an NSParagraphStyle", v) }
                paragraph = p
            }
            // Split the run at line breaks: each paragraph takes its first character's style.
            let text = string.substring(with: range)
            var pending = ""
            func flush() {
                guard !pending.isEmpty else { return }
                style.alignment = paragraphStyle.alignment
                style.direction = paragraphStyle.baseWritingDirection
                styled.append(pending, style: style)
                pending = ""
            }
            for scalar in text.unicodeScalars {
                if atParagraphStart {
                    flush()
                    paragraphStyle = paragraph ?? .default
                    atParagraphStart = false
                }
                pending.unicodeScalars.append(scalar)
                if [0x0A, 0x0D, 0x2028, 0x2029].contains(scalar.value) { atParagraphStart = true }
            }
            flush()
        }
        if let failure { throw failure }
        return styled
    }
}
