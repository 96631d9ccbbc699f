// The checked types of kernel expressions, and what the compiler hands the kernel classes.

/// A checked value type. Vectors and matrices are one register per component (matrices by
/// columns); samplers and the Metal destination are handles with no registers.
enum KType: Equatable, CustomStringConvertible {
    case float, int, bool
    case vec(Int)
    case mat(Int)
    case sampler
    case destination
    case void

    /// Registers a value of the type takes.
    var width: Int {
        switch self {
        case .float, .int, .bool: return 1
        case .vec(let n): return n
        case .mat(let n): return n * n
        case .sampler, .destination, .void: return 0
        }
    }
    var isScalar: Bool { self == .float || self == .int || self == .bool }
    var isNumeric: Bool { width > 0 }

    var description: String {
        switch self {
        case .float: return "float"
        case .int: return "int"
        case .bool: return "bool"
        case .vec(let n): return "vec\(n)"
        case .mat(let n): return "mat\(n)"
        case .sampler: return "sampler"
        case .destination: return "destination"
        case .void: return "void"
        }
    }

    /// The type a written name means in either language (`float4`, `vec4`, `__sample`, ...).
    static func named(_ name: String) -> KType? {
        switch name {
        case "float", "half": return .float
        case "int", "uint", "short": return .int
        case "bool": return .bool
        case "vec2", "float2", "half2", "ivec2", "int2", "uint2", "bvec2", "bool2": return .vec(2)
        case "vec3", "float3", "half3", "ivec3", "int3", "bvec3", "bool3": return .vec(3)
        case "vec4", "float4", "half4", "ivec4", "int4", "bvec4", "bool4", "__sample", "sample_t", "__color": return .vec(4)
        case "mat2", "float2x2", "half2x2": return .mat(2)
        case "mat3", "float3x3", "half3x3": return .mat(3)
        case "mat4", "float4x4", "half4x4": return .mat(4)
        case "sampler", "sampler_h": return .sampler
        case "destination": return .destination
        case "void": return .void
        default: return nil
        }
    }
}

/// What a kernel compiles to on the engine.
enum CompiledKernelKind: Sendable, Equatable {
    /// Per-pixel over `__sample` inputs: a fused colour stage.
    case color
    /// Returns a source point (`vec2`): a warp map.
    case warp
    /// Reads samplers anywhere within its ROI: a general (neighbourhood) node.
    case general
}

/// One argument a compiled kernel takes, in order.
struct KernelArgument: Sendable {
    enum Kind: Sendable, Equatable {
        /// A `__sample` (colour kernel) or `sampler` (general kernel) image input.
        case image(index: Int)
        /// Numbers (float, vecN, matN), `width` uniform slots from `slot`.
        case number(width: Int, slot: Int)
        /// A `__color`: four uniform slots, from a CIColor in the working space.
        case color(slot: Int)
        /// Metal's `coreimage::destination`: supplied by the renderer, not by the caller.
        case destination
    }
    let name: String
    let kind: Kind
}

/// A kernel function compiled to the span IR, with how to call it.
struct CompiledKernel: Sendable {
    let name: String
    let kind: CompiledKernelKind
    let arguments: [KernelArgument]
    let program: KernelProgram
    /// Uniform slots the arguments and samplers fill.
    let uniformCount: Int
    /// Per sampler: the first of its four uniform slots (its image's extent x, y, width, height).
    let samplerExtentSlots: [Int]
    /// Image inputs (colour kernels' `__sample`s or general kernels' samplers), in order.
    var imageCount: Int { arguments.filter { if case .image = $0.kind { return true } else { return false } }.count }
}
