import Cyanotype
import Foundation

/// An ordered list of filters, applied first to last. Internally locked, so one chain may be
/// edited and rendered from several threads; rendering works from an immutable `snapshot`.
/// Codable as a readable JSON recipe (see `RecipeStep`'s forms):
///
///     {"version": 1, "steps": [{"look": "clarendon", "intensity": 0.7},
///                              {"filter": "CISepiaTone", "parameters": {"inputIntensity": 0.5}}]}
public final class FilterChain: Filter, Codable, @unchecked Sendable, CustomStringConvertible {
    private let lock = NSLock()
    private var steps: [BaseFilter]
    /// The chain's recipe name, `chain`.
    public let name = "chain"

    /// A chain of `filters`, applied first to last.
    public init(_ filters: [BaseFilter] = []) { steps = filters }

    /// An immutable copy of the chain's steps and their parameters at one moment.
    public struct Snapshot: Sendable {
        /// The steps, copied when the snapshot was taken.
        public let filters: [BaseFilter]
        /// Applies every step in order; the result is cropped to the input's extent.
        public func apply(to image: CIImage) -> CIImage {
            let e = image.extent
            var out = image
            for f in filters { out = f.apply(to: out) }
            return e.isInfinite || e.isEmpty ? out : out.cropped(to: e)
        }
    }

    // MARK: Editing

    /// The number of steps.
    public var count: Int { locked { steps.count } }
    /// The steps, first to last (the filters themselves, not copies).
    public var filters: [BaseFilter] { locked { steps } }
    /// The step at `index` (which must be in range).
    public subscript(index: Int) -> BaseFilter { locked { steps[index] } }

    /// Adds `filter` as the last step.
    public func append(_ filter: BaseFilter) { locked { steps.append(filter) } }
    /// Inserts at `index` (clamped to 0...count).
    public func insert(_ filter: BaseFilter, at index: Int) {
        locked { steps.insert(filter, at: min(max(index, 0), steps.count)) }
    }
    /// Removes and returns the step at `index`, or nil when out of range.
    @discardableResult public func remove(at index: Int) -> BaseFilter? {
        locked { steps.indices.contains(index) ? steps.remove(at: index) : nil }
    }
    /// Moves the step at `from` so that it ends at index `to` (clamped); false when `from` is
    /// out of range.
    @discardableResult public func move(from: Int, to: Int) -> Bool {
        locked {
            guard steps.indices.contains(from) else { return false }
            let f = steps.remove(at: from)
            steps.insert(f, at: min(max(to, 0), steps.count))
            return true
        }
    }
    /// Replaces the step at `index`; returns the old one, or nil when out of range.
    @discardableResult public func replace(at index: Int, with filter: BaseFilter) -> BaseFilter? {
        locked {
            guard steps.indices.contains(index) else { return nil }
            let old = steps[index]
            steps[index] = filter
            return old
        }
    }
    /// Removes every step.
    public func removeAll() { locked { steps.removeAll() } }

    /// The steps as they are now, copied so later edits do not reach a render in progress.
    public var snapshot: Snapshot {
        let current = locked { steps }
        return Snapshot(filters: current.map { $0.copy() })
    }

    /// Applies a snapshot of the chain.
    public func apply(to image: CIImage) -> CIImage { snapshot.apply(to: image) }

    /// The steps, first to last, for logs.
    public var description: String { "FilterChain(" + filters.map(\.description).joined(separator: " -> ") + ")" }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body()
    }

    // MARK: Recipes

    private enum CodingKeys: String, CodingKey { case version, steps }

    /// Reads a recipe (`{"version": 1, "steps": [...]}`); throws `RecipeError` for an unknown
    /// version, look, filter or parameter.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        guard version == 1 else { throw RecipeError.malformed("recipe version \(version) is not supported (this library reads version 1)") }
        let raw = try c.decode([RecipeStep].self, forKey: .steps)
        var made: [BaseFilter] = []
        for s in raw { made.append(try s.makeFilter()) }
        steps = made
    }

    /// Writes the chain as a version 1 recipe; throws `RecipeError.unencodable` for a step a
    /// recipe cannot hold.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(1, forKey: .version)
        var out: [RecipeStep] = []
        for f in filters { out.append(try RecipeStep(f)) }
        try c.encode(out, forKey: .steps)
    }

    /// The chain as pretty-printed JSON with sorted keys.
    public func recipeJSON() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try e.encode(self)
    }

    /// A chain from a JSON recipe; throws `RecipeError` for unknown looks, filters or
    /// parameters, and for JSON that is not a recipe.
    public convenience init(recipeJSON data: Data) throws(RecipeError) {
        let decoded: FilterChain
        do {
            decoded = try JSONDecoder().decode(FilterChain.self, from: data)
        } catch let e as RecipeError {
            throw e
        } catch {
            throw .malformed(FilterChain.describe(error))
        }
        self.init(decoded.filters)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let k, let ctx):
            return "missing \"\(k.stringValue)\"" + (ctx.codingPath.isEmpty ? "" : " at " + ctx.codingPath.map(\.stringValue).joined(separator: "."))
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx), DecodingError.dataCorrupted(let ctx):
            return ctx.debugDescription + (ctx.codingPath.isEmpty ? "" : " at " + ctx.codingPath.map(\.stringValue).joined(separator: "."))
        default:
            return String(describing: error)
        }
    }
}
