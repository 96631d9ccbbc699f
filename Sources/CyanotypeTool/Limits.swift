import Cyanotype

/// What values a filter input accepts, as the tool tells the user (`describe`) and warns about
/// (naming the value the filter will use; the filter itself clamps, once). The one place that
/// reads limits from the filter declarations: Apple's declared minimum and maximum combined
/// with the library's own declared limits (`FilterInputDescriptor.limit`), exactly the range
/// the library clamps to.
package enum InputLimits {
    /// The lowest and highest value `input` takes (nil: unbounded on that side).
    package static func range(of input: FilterInputDescriptor) -> (min: Double?, max: Double?) {
        (input.effectiveMinimum, input.effectiveMaximum)
    }

    /// "0...250", "-inf...1", or nil when the input has no declared limits.
    package static func text(_ input: FilterInputDescriptor) -> String? {
        let r = range(of: input)
        guard r.min != nil || r.max != nil else { return nil }
        return "\(r.min.map(FilterJSON.number) ?? "-inf")...\(r.max.map(FilterJSON.number) ?? "inf")"
    }

    /// The value the filter will use for `value` (the library's one clamp,
    /// `FilterInputDescriptor.effectiveValue`), and the warning to print when it differs.
    package static func check(_ value: Double, for input: FilterInputDescriptor, filter: String) -> (used: Double, warning: String?) {
        let used = input.effectiveValue(value)
        guard used != value, let range = text(input) else { return (value, nil) }
        let key = Names.shortKey(input.key)
        // Our own limit says why it exists; Apple's range needs no reason.
        let why = input.limit.flatMap { $0.contains(value) ? nil : ": \($0.reason)" } ?? ""
        return (used, "\(filter): value \(FilterJSON.number(value)) for \(key) is outside \(range); using \(FilterJSON.number(used))\(why)")
    }
}
