/// Why a filter could not produce an image: the messages name the filter, the key and what
/// to do. `CIFilter.outputImage` returns nil for these; `makeOutputImage()` throws them.
public enum CIFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No built-in or registered filter has this name.
    case unknownFilter(String)
    /// The filter has no input of this key; `validKeys` lists the ones it has.
    case unknownKey(filter: String, key: String, validKeys: [String])
    /// A required input (usually an image) was not set.
    case missingInput(filter: String, key: String)
    /// An input was set to a value of the wrong type (`expected` and `got` name the types).
    case wrongType(filter: String, key: String, expected: String, got: String)
    /// A number input is NaN or infinite.
    case nonFinite(filter: String, key: String)
    /// An input's value cannot be used; `reason` says why.
    case invalidValue(filter: String, key: String, reason: String)
    /// A filter whose work needs one of Apple's frameworks or an Apple device's data, which
    /// Cyanotype does not have (`needs` says what).
    case unavailable(filter: String, needs: String)

    /// What went wrong, naming the filter and the key, in words a user can act on.
    public var description: String {
        switch self {
        case .unknownFilter(let n):
            return "unknown filter '\(n)': see CIFilter.filterNames(inCategory: nil) for the built-in names"
        case let .unknownKey(f, k, valid):
            return "\(f) has no input '\(k)'; its inputs are \(valid.joined(separator: ", "))"
        case let .missingInput(f, k):
            return "\(f) needs an image for '\(k)'"
        case let .wrongType(f, k, expected, got):
            return "\(f).\(k) expects \(expected), got \(got)"
        case let .nonFinite(f, k):
            return "\(f).\(k) must be a finite number (got NaN or infinity)"
        case let .invalidValue(f, k, reason):
            return "\(f).\(k): \(reason)"
        case let .unavailable(f, needs):
            return "\(f) cannot run here: it needs \(needs), found only on Apple's platforms"
        }
    }
}
