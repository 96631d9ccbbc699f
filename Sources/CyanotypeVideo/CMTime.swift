import Foundation

/// Core Media's integer time value (`CMTimeValue`).
public typealias CMTimeValue = Int64
/// Core Media's time scale: units per second (`CMTimeScale`).
public typealias CMTimeScale = Int32
/// Core Media's epoch (`CMTimeEpoch`).
public typealias CMTimeEpoch = Int64

/// A rational time, `value / timescale` seconds, with Core Media's names and semantics
/// (`CMTime`): exact arithmetic on integers, plus invalid, indefinite and infinite times.
public struct CMTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Core Media's `CMTimeFlags`.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The flag bits, as Core Media stores them.
        public let rawValue: UInt32
        /// The flags with bits `rawValue`.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Set on every valid time; a time without it is invalid (`kCMTimeFlags_Valid`).
        public static let valid = Flags(rawValue: 1 << 0)
        /// Set when the value was rounded, or derived from a rounded time (`kCMTimeFlags_HasBeenRounded`).
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// The time is +infinity; value and timescale are ignored (`kCMTimeFlags_PositiveInfinity`).
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// The time is -infinity; value and timescale are ignored (`kCMTimeFlags_NegativeInfinity`).
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// The time is unknown, such as a live stream's duration; value and timescale are ignored
        /// (`kCMTimeFlags_Indefinite`).
        public static let indefinite = Flags(rawValue: 1 << 4)
        /// The flags that imply the value: both infinities and indefinite (`kCMTimeFlags_ImpliedValueFlagsMask`).
        public static let impliedValueFlagsMask: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]
    }

    /// The numerator: the time is `value / timescale` seconds.
    public var value: CMTimeValue
    /// Units per second: the denominator of `value / timescale`.
    public var timescale: CMTimeScale
    /// Whether the time is valid, rounded, infinite or indefinite (Core Media's `CMTimeFlags`).
    public var flags: Flags
    /// Core Media's epoch, which tells apart equal timestamps from different loops;
    /// `CMTimeCompare` orders by it first, as Core Media does.
    public var epoch: CMTimeEpoch

    /// `value / timescale` seconds; a timescale of 0 or less gives an invalid time, as in Core Media.
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self.value = value
        self.timescale = timescale
        self.flags = timescale > 0 ? .valid : []
        self.epoch = 0
    }
    /// Core Media's full initialiser.
    public init(value: CMTimeValue, timescale: CMTimeScale, flags: Flags, epoch: CMTimeEpoch) {
        self.value = value; self.timescale = timescale; self.flags = flags; self.epoch = epoch
    }
    /// `seconds` rounded to the nearest `1 / preferredTimescale` (NaN gives an invalid time,
    /// infinities the infinite times).
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        if seconds.isNaN || preferredTimescale <= 0 { self = .invalid; return }
        if seconds.isInfinite { self = seconds > 0 ? .positiveInfinity : .negativeInfinity; return }
        let v = (seconds * Double(preferredTimescale)).rounded()
        guard abs(v) < 9.2e18 else { self = seconds > 0 ? .positiveInfinity : .negativeInfinity; return }
        self.init(value: CMTimeValue(v), timescale: preferredTimescale)
        if Double(value) != seconds * Double(preferredTimescale) { flags.insert(.hasBeenRounded) }
    }

    /// Zero seconds, timescale 1 (`kCMTimeZero`).
    public static let zero = CMTime(value: 0, timescale: 1)
    /// An invalid time: zero fields and no flags (`kCMTimeInvalid`).
    public static let invalid = CMTime(value: 0, timescale: 0, flags: [], epoch: 0)
    /// An unknown time, such as a live stream's duration (`kCMTimeIndefinite`).
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// A time after every numeric time (`kCMTimePositiveInfinity`).
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// A time before every numeric time (`kCMTimeNegativeInfinity`).
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    /// Whether the `.valid` flag is set (`CMTIME_IS_VALID`).
    public var isValid: Bool { flags.contains(.valid) }
    /// Valid and indefinite (`CMTIME_IS_INDEFINITE`).
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// Valid and +infinity (`CMTIME_IS_POSITIVE_INFINITY`).
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// Valid and -infinity (`CMTIME_IS_NEGATIVE_INFINITY`).
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// Valid and finite: a real number of seconds.
    public var isNumeric: Bool { isValid && flags.isDisjoint(with: .impliedValueFlagsMask) }
    /// Whether the `.hasBeenRounded` flag is set (`CMTIME_HAS_BEEN_ROUNDED`).
    public var hasBeenRounded: Bool { flags.contains(.hasBeenRounded) }

    /// The time in seconds (NaN when invalid or indefinite, ±infinity for the infinite times).
    public var seconds: Double {
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        guard isNumeric, timescale > 0 else { return .nan }
        return Double(value) / Double(timescale)
    }

    /// The same time in another timescale, rounded to nearest (Core Media's `convertScale`).
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod = .default) -> CMTime {
        guard isNumeric, newTimescale > 0 else { return self }
        if newTimescale == timescale { return self }
        let exact = Double(value) * Double(newTimescale) / Double(timescale)
        let v: Double
        switch method {
        case .roundTowardZero: v = exact.rounded(.towardZero)
        case .quickTime: v = exact.rounded(newTimescale > timescale ? .awayFromZero : .towardZero)
        case .roundAwayFromZero: v = exact.rounded(.awayFromZero)
        case .roundTowardPositiveInfinity: v = exact.rounded(.up)
        case .roundTowardNegativeInfinity: v = exact.rounded(.down)
        default: v = exact.rounded()
        }
        var t = CMTime(value: CMTimeValue(v), timescale: newTimescale)
        if v != exact { t.flags.insert(.hasBeenRounded) }
        return t
    }

    /// `CMTime(value/timescale = seconds s)`, or the kind of a non-numeric time (invalid,
    /// indefinite, ±infinity).
    public var description: String {
        if !isValid { return "CMTime(invalid)" }
        if isIndefinite { return "CMTime(indefinite)" }
        if isPositiveInfinity { return "CMTime(+infinity)" }
        if isNegativeInfinity { return "CMTime(-infinity)" }
        return "CMTime(\(value)/\(timescale) = \(String(format: "%.3f", seconds)) s)"
    }

    // MARK: Arithmetic

    /// Sum (Core Media's `CMTimeAdd`): exact in the larger timescale when it divides evenly,
    /// else in the product of timescales (rounded to at most 10^9 units per second).
    public static func + (a: CMTime, b: CMTime) -> CMTime { combine(a, b, +) }
    /// Difference (Core Media's `CMTimeSubtract`), with the timescale rules of `+`.
    public static func - (a: CMTime, b: CMTime) -> CMTime { combine(a, b.negated, +) }
    /// Adds `b` to `a` (`a = a + b`).
    public static func += (a: inout CMTime, b: CMTime) { a = a + b }
    /// Subtracts `b` from `a` (`a = a - b`).
    public static func -= (a: inout CMTime, b: CMTime) { a = a - b }
    /// The negated time: the infinities swap; invalid and indefinite times come back unchanged.
    public static prefix func - (a: CMTime) -> CMTime { a.negated }
    /// `time * multiplier` (Core Media's `CMTimeMultiply`).
    public static func * (a: CMTime, m: Int32) -> CMTime {
        guard a.isNumeric else { return a }
        let (v, o) = a.value.multipliedReportingOverflow(by: CMTimeValue(m))
        if o { return (a.value < 0) != (m < 0) ? .negativeInfinity : .positiveInfinity }
        return CMTime(value: v, timescale: a.timescale)
    }
    /// `time * multiplier` (Core Media's `CMTimeMultiplyByFloat64`), in the same timescale.
    public static func * (a: CMTime, m: Double) -> CMTime {
        guard a.isNumeric else { return a }
        return CMTime(seconds: a.seconds * m, preferredTimescale: max(a.timescale, 600))
    }

    var negated: CMTime {
        if isPositiveInfinity { return .negativeInfinity }
        if isNegativeInfinity { return .positiveInfinity }
        guard isNumeric else { return self }
        var t = self
        t.value = -value
        return t
    }

    private static func combine(_ a: CMTime, _ b: CMTime, _ op: (CMTimeValue, CMTimeValue) -> CMTimeValue) -> CMTime {
        if !a.isValid || !b.isValid { return .invalid }
        if a.isIndefinite || b.isIndefinite { return .indefinite }
        if a.isPositiveInfinity || b.isPositiveInfinity {
            return (a.isNegativeInfinity || b.isNegativeInfinity) ? .invalid : .positiveInfinity
        }
        if a.isNegativeInfinity || b.isNegativeInfinity { return .negativeInfinity }
        if a.timescale == b.timescale { return CMTime(value: op(a.value, b.value), timescale: a.timescale) }
        let big = max(a.timescale, b.timescale), small = min(a.timescale, b.timescale)
        var scale = big
        if big % small != 0 {
            let product = Int64(a.timescale) * Int64(b.timescale) / Int64(gcd(Int(a.timescale), Int(b.timescale)))
            scale = product <= 1_000_000_000 ? Int32(product) : big
        }
        let x = a.convertScale(scale), y = b.convertScale(scale)
        var t = CMTime(value: op(x.value, y.value), timescale: scale)
        if x.hasBeenRounded || y.hasBeenRounded { t.flags.insert(.hasBeenRounded) }
        return t
    }

    /// Core Media's ordering: negative infinity < numbers < positive infinity < indefinite;
    /// invalid times sort first.
    public static func < (a: CMTime, b: CMTime) -> Bool { CMTimeCompare(a, b) < 0 }
    /// Equal in Core Media's order (`CMTimeCompare` gives 0): 1/2 equals 300/600.
    public static func == (a: CMTime, b: CMTime) -> Bool { CMTimeCompare(a, b) == 0 }
    /// Hashes what `==` compares: a numeric time's epoch and its value over its timescale in
    /// lowest terms (so 1/2 and 300/600 hash alike), else which kind of non-numeric time it is.
    public func hash(into h: inout Hasher) {
        guard isNumeric, timescale > 0 else {
            h.combine(isValid ? (isNegativeInfinity ? 1 : isPositiveInfinity ? 3 : 4) : 0)
            return
        }
        let g = max(gcd(Int(value), Int(timescale)), 1)
        h.combine(epoch)
        h.combine(Int(value) / g)
        h.combine(Int(timescale) / g)
    }
}

/// How `convertScale` rounds (Core Media's `CMTimeRoundingMethod`).
public enum CMTimeRoundingMethod: Sendable {
    /// To the nearest value, halves away from zero (the default).
    case roundHalfAwayFromZero
    /// Toward zero (truncation).
    case roundTowardZero
    /// Away from zero whenever there is a fraction.
    case roundAwayFromZero
    /// QuickTime's rule, as Core Media's: toward zero into a coarser timescale, away from zero
    /// into a finer one.
    case quickTime
    /// Up, toward +infinity.
    case roundTowardPositiveInfinity
    /// Down, toward -infinity.
    case roundTowardNegativeInfinity
    /// `.roundHalfAwayFromZero`, as in Core Media (`kCMTimeRoundingMethod_Default`).
    public static let `default` = CMTimeRoundingMethod.roundHalfAwayFromZero
}

private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? abs(a) : gcd(b, a % b) }

/// Core Media's `CMTimeMake`.
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime { CMTime(value: value, timescale: timescale) }
/// Core Media's `CMTimeMakeWithSeconds`.
public func CMTimeMakeWithSeconds(_ seconds: Double, preferredTimescale: Int32) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}
/// The time in seconds (`CMTimeGetSeconds`).
public func CMTimeGetSeconds(_ time: CMTime) -> Double { time.seconds }
/// `CMTimeAdd`.
public func CMTimeAdd(_ a: CMTime, _ b: CMTime) -> CMTime { a + b }
/// `CMTimeSubtract`.
public func CMTimeSubtract(_ a: CMTime, _ b: CMTime) -> CMTime { a - b }
/// `CMTimeMultiply`.
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime { time * multiplier }
/// `CMTimeMultiplyByFloat64`.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Double) -> CMTime { time * multiplier }
/// `CMTimeConvertScale`.
public func CMTimeConvertScale(_ time: CMTime, timescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    time.convertScale(timescale, method: method)
}
/// -1, 0 or 1, in Core Media's order (`CMTimeCompare`).
public func CMTimeCompare(_ a: CMTime, _ b: CMTime) -> Int32 {
    func rank(_ t: CMTime) -> Int {
        if !t.isValid { return 0 }
        if t.isNegativeInfinity { return 1 }
        if t.isPositiveInfinity { return 3 }
        if t.isIndefinite { return 4 }
        return 2
    }
    let ra = rank(a), rb = rank(b)
    if ra != rb { return ra < rb ? -1 : 1 }
    guard ra == 2 else { return 0 }
    // Core Media orders numeric times by epoch first (a looping timeline's pass).
    if a.epoch != b.epoch { return a.epoch < b.epoch ? -1 : 1 }
    if a.timescale == b.timescale { return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0) }
    // Exact cross-multiplication (128-bit).
    let l = a.value.multipliedFullWidth(by: Int64(b.timescale))
    let r = b.value.multipliedFullWidth(by: Int64(a.timescale))
    if l.high != r.high { return l.high < r.high ? -1 : 1 }
    return l.low < r.low ? -1 : (l.low > r.low ? 1 : 0)
}
/// The smaller of two times (`CMTimeMinimum`).
public func CMTimeMinimum(_ a: CMTime, _ b: CMTime) -> CMTime { CMTimeCompare(a, b) <= 0 ? a : b }
/// The larger of two times (`CMTimeMaximum`).
public func CMTimeMaximum(_ a: CMTime, _ b: CMTime) -> CMTime { CMTimeCompare(a, b) >= 0 ? a : b }
/// The absolute value (`CMTimeAbsoluteValue`).
public func CMTimeAbsoluteValue(_ t: CMTime) -> CMTime { CMTimeCompare(t, .zero) < 0 ? -t : t }

/// Zero seconds (Core Media's `kCMTimeZero`).
public let kCMTimeZero = CMTime.zero
/// An invalid time (Core Media's `kCMTimeInvalid`).
public let kCMTimeInvalid = CMTime.invalid
/// An unknown time (Core Media's `kCMTimeIndefinite`).
public let kCMTimeIndefinite = CMTime.indefinite
/// +infinity (Core Media's `kCMTimePositiveInfinity`).
public let kCMTimePositiveInfinity = CMTime.positiveInfinity
/// -infinity (Core Media's `kCMTimeNegativeInfinity`).
public let kCMTimeNegativeInfinity = CMTime.negativeInfinity

/// A span of time (`CMTimeRange`): a start and a duration.
public struct CMTimeRange: Sendable, Hashable, CustomStringConvertible {
    /// When the range begins.
    public var start: CMTime
    /// How long it lasts; `end` is `start + duration`.
    public var duration: CMTime

    /// The range from `start` lasting `duration` (`CMTimeRangeMake`).
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }
    /// The range from `start` up to (not including) `end`.
    public init(start: CMTime, end: CMTime) {
        self.start = start
        self.duration = end - start
    }

    /// An empty range at time zero (`kCMTimeRangeZero`).
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    /// A range of invalid times (`kCMTimeRangeInvalid`).
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// `start + duration`.
    public var end: CMTime { start + duration }
    /// Valid start and duration, and a duration that is not a negative number (`CMTIMERANGE_IS_VALID`).
    public var isValid: Bool { start.isValid && duration.isValid && (duration.isNumeric ? duration.value >= 0 : true) }
    /// Valid with a zero duration (`CMTIMERANGE_IS_EMPTY`).
    public var isEmpty: Bool { isValid && duration == .zero }
    /// Valid with an indefinite start or duration (`CMTIMERANGE_IS_INDEFINITE`).
    public var isIndefinite: Bool { isValid && (start.isIndefinite || duration.isIndefinite) }

    /// Whether `time` lies in `[start, end)`.
    public func containsTime(_ time: CMTime) -> Bool {
        isValid && time >= start && time < end
    }
    /// The overlap of two ranges (empty at the later start when they do not meet).
    public func intersection(_ other: CMTimeRange) -> CMTimeRange {
        let s = CMTimeMaximum(start, other.start), e = CMTimeMinimum(end, other.end)
        return e > s ? CMTimeRange(start: s, end: e) : CMTimeRange(start: s, duration: .zero)
    }

    /// `CMTimeRange(start: ..., duration: ...)` with both times as `CMTime.description` writes them.
    public var description: String { "CMTimeRange(start: \(start), duration: \(duration))" }
}

/// `CMTimeRangeMake`.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange { CMTimeRange(start: start, duration: duration) }
/// `CMTimeRangeGetEnd`.
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime { range.end }
/// `CMTimeRangeContainsTime`.
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool { range.containsTime(time) }
/// An empty range at time zero (Core Media's `kCMTimeRangeZero`).
public let kCMTimeRangeZero = CMTimeRange.zero
/// A range of invalid times (Core Media's `kCMTimeRangeInvalid`).
public let kCMTimeRangeInvalid = CMTimeRange.invalid
