import Foundation

// The few AppKit/UIKit text names that CIAttributedTextImageGenerator's attributed strings use,
// where those frameworks are missing: Foundation on Linux has `NSAttributedString` and
// `NSAttributedString.Key`, but neither the keys' constants nor fonts or paragraph styles.
// These are ours, spelled as Apple spells them, with only what the text filters read.

extension NSAttributedString.Key {
    /// The run's font: an `NSFont` (`UIFont`). Absent: Helvetica 12 (here Liberation Sans,
    /// fontconfig's metric-compatible stand-in), as Core Text's default.
    public static let font = NSAttributedString.Key("NSFont")
    /// The run's colour: a `CIColor` (Cyanotype has no `UIColor`/`NSColor`/`CGColor`). Absent: black.
    public static let foregroundColor = NSAttributedString.Key("NSColor")
    /// A number of points added after every character of the run, with the font's own pair
    /// kerning switched off (Core Text's `kCTKernAttributeName`: 0 means no kerning at all).
    /// Absent: the font's kerning.
    public static let kern = NSAttributedString.Key("NSKern")
    /// The paragraph's `NSParagraphStyle` (alignment, writing direction), read from the
    /// paragraph's first character as AppKit and UIKit do.
    public static let paragraphStyle = NSAttributedString.Key("NSParagraphStyle")
}

/// A font by name and size, for `NSAttributedString.Key.font` (AppKit's name; `UIFont` is the
/// same type here). Cyanotype's own minimal type: the name is looked up in the installed fonts
/// through fontconfig when text is drawn (PostScript names such as "DejaVuSans-Bold", full
/// names, family names with an optional "-Bold"/"-Italic" style, and fontconfig's aliases:
/// Helvetica and Arial are Liberation Sans, Times Liberation Serif, Courier Liberation Mono);
/// a name no installed font answers to falls back to the default sans-serif font.
public final class NSFont: Hashable, Sendable, CustomStringConvertible {
    /// The name the font was made with.
    public let fontName: String
    /// The size in points (pixels at scale factor 1).
    public let pointSize: CGFloat

    /// A font by name; a size of 0, a negative or a non-finite one gives 12 points (AppKit's
    /// default size). Unlike AppKit this never fails for an uninstalled name (it falls back
    /// when drawn), so ported `UIFont(name:size:)!` code keeps working; only an empty name
    /// gives nil.
    public init?(name: String, size: CGFloat) {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        fontName = name
        pointSize = size.isFinite && size > 0 ? size : 12
    }

    private init(system name: String, size: CGFloat) {
        fontName = name
        pointSize = size.isFinite && size > 0 ? size : 12
    }

    /// The system's user-interface font: fontconfig's "sans-serif".
    public static func systemFont(ofSize size: CGFloat) -> NSFont { NSFont(system: "sans-serif", size: size) }
    /// The bold system font: fontconfig's "sans-serif" in bold.
    public static func boldSystemFont(ofSize size: CGFloat) -> NSFont { NSFont(system: "sans-serif-Bold", size: size) }
    /// The same font at another size.
    public func withSize(_ size: CGFloat) -> NSFont { NSFont(system: fontName, size: size) }

    /// Fonts with the same name and size are equal.
    public static func == (l: NSFont, r: NSFont) -> Bool { l.fontName == r.fontName && l.pointSize == r.pointSize }
    /// Hashes the name and size.
    public func hash(into h: inout Hasher) {
        h.combine(fontName)
        h.combine(pointSize)
    }
    /// The name and size, as "DejaVu Sans 12.0pt".
    public var description: String { "\(fontName) \(pointSize)pt" }
}

/// UIKit's name for the font type: the same as `NSFont` here.
public typealias UIFont = NSFont

/// How the lines of a paragraph sit in the text's box (UIKit's raw values).
public enum NSTextAlignment: Int, Sendable {
    /// Against the left edge.
    case left = 0
    /// Centred.
    case center = 1
    /// Against the right edge.
    case right = 2
    /// Justified: lines end only where the text has line breaks, and a paragraph's last line
    /// is not justified, so every line here is set as `natural`.
    case justified = 3
    /// Left for left-to-right paragraphs, right for right-to-left ones.
    case natural = 4
}

/// A paragraph's base writing direction.
public enum NSWritingDirection: Int, Sendable {
    /// From the paragraph's first strong character (Unicode's rules P2 and P3), else left to right.
    case natural = -1
    /// Left to right.
    case leftToRight = 0
    /// Right to left.
    case rightToLeft = 1
}

/// A paragraph's layout, for `NSAttributedString.Key.paragraphStyle`: Cyanotype's minimal
/// version with AppKit's names, holding the alignment and base writing direction.
public class NSParagraphStyle: @unchecked Sendable {
    fileprivate var _alignment: NSTextAlignment
    fileprivate var _baseWritingDirection: NSWritingDirection

    /// Natural alignment, natural direction.
    public init() {
        _alignment = .natural
        _baseWritingDirection = .natural
    }

    /// The default style: natural alignment and direction.
    public static let `default` = NSParagraphStyle()

    /// How the paragraph's lines are aligned.
    public var alignment: NSTextAlignment { _alignment }
    /// The paragraph's base direction.
    public var baseWritingDirection: NSWritingDirection { _baseWritingDirection }

    /// A mutable copy.
    public func mutableCopy() -> NSMutableParagraphStyle {
        let m = NSMutableParagraphStyle()
        m.alignment = alignment
        m.baseWritingDirection = baseWritingDirection
        return m
    }
}

/// A paragraph style whose properties can be set.
public final class NSMutableParagraphStyle: NSParagraphStyle, @unchecked Sendable {
    /// How the paragraph's lines are aligned.
    public override var alignment: NSTextAlignment {
        get { _alignment }
        set { _alignment = newValue }
    }
    /// The paragraph's base direction.
    public override var baseWritingDirection: NSWritingDirection {
        get { _baseWritingDirection }
        set { _baseWritingDirection = newValue }
    }
}
