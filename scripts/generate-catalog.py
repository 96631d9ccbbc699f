#!/usr/bin/env python3
"""Generates Sources/Cyanotype/Filters/Catalog/Catalog*.generated.swift: every built-in filter's
declaration, from two sources that each hold one part of it.

  - Attributes (name, display name, categories, and per input: key, class, type, default,
    identity, hard and slider ranges) come from a spec file: Apple's spec/coreimage-filters.json,
    and for filters of our own spec/cyanotype-filters.json (same format; read when present).
  - Our documentation and limits come from the Swift declaration next to the filter's maths,
    under Sources/Cyanotype/Filters:

        /// CIGaussianBlur: what ours does.
        ///
        /// - inputRadius: what the input means here.
        static let gaussianBlur = BuiltinFilter(Catalog.CIGaussianBlur, limits: [kCIInputRadiusKey: .gaussianSigma]) { args ... }

    or, for a family sharing one implementation, one table whose rows carry their own `///`:

        /// What the family shares; `- inputKey:` items for the shared inputs.
        static let convolutions = BuiltinFilter.family([
            /// CIConvolution3X3: ...
            (Catalog.CIConvolution3X3, ConvolutionShape(columns: 3, rows: 3, channels: .rgba)),
            ...
        ], limits: [...]) { args, shape throws(CIFilterError) in ... }

    The text of a `///` block before its first `- inputKey:` item is the filter's
    documentation; each item (continued on lines indented by two more spaces) an input's.
    A limit is a named `static let NAME = FilterInputLimit(minimum: <number>, maximum:
    <number>, reason: "...")` somewhere under Filters/; the Swift side applies it, this script
    only quotes it in the typed properties' documentation.

It emits, for the filters declared under Filters/<Folder> (so no file grows past a reader's
reach), in Catalog+<Folder>.generated.swift:
  - `Catalog.CIName`: the FilterDescriptor (Apple's attributes, our documentation);
and in CIFilterBuiltins+<Folder>.generated.swift:
  - the typed builtins: `protocol CIName` (Apple's, shared where Apple shares them), a CIFilter
    subclass with typed properties, and `CIFilter.name()` where Core Image has a
    CIFilterBuiltins factory, all documented from the declarations;
and in Catalog.generated.swift the registry (`BuiltinFilters.all`, `BuiltinFilters.typed`) and
the protocols several groups share.

Run it after adding or changing a declaration: python3 scripts/generate-catalog.py
A test (FilterDeclarationTests) regenerates the files and fails when the committed ones differ.
Options (for that test and for fixtures): --out DIR, --filters DIR, --spec FILE (repeatable),
--check (exit 1 when the files in DIR differ instead of writing them).
"""
import argparse, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPLE_SPEC = os.path.join(ROOT, "spec", "coreimage-filters.json")
OUR_SPEC = os.path.join(ROOT, "spec", "cyanotype-filters.json")
FILTERS = os.path.join(ROOT, "Sources", "Cyanotype", "Filters")
CONSTANTS = os.path.join(ROOT, "Sources", "Cyanotype", "API", "Constants.swift")
OUT = os.path.join(FILTERS, "Catalog")


def fail(message):
    sys.exit(f"generate-catalog: {message}")


# MARK: - Reading Swift

def matching_close(text, start):
    """Index of the bracket closing the one at `start` ('(' or '['), skipping comments and
    string literals."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        if text.startswith('"""', i):
            i = text.find('"""', i + 3) + 3
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                fail(f"unbalanced {c!r} at offset {i}")
            if not stack:
                return i
        i += 1
    fail(f"no closing bracket for the one at offset {start}")


def code_only(text):
    """The text with comments blanked out (same length and lines), for finding declarations."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i) + 2
        elif text.startswith('"""', i):
            i = text.find('"""', i + 3) + 3
            continue
        elif text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def swift_number(literal):
    s = literal.strip().replace("_", "")
    sign = 1.0
    if s.startswith("-"):
        sign, s = -1.0, s[1:].strip()
    try:
        if s.lower().startswith("0x"):
            return sign * (float.fromhex(s) if "p" in s.lower() or "." in s else int(s, 16))
        return sign * float(s)
    except ValueError:
        return None


def swift_string(literal):
    m = re.fullmatch(r'\s*"((?:[^"\\]|\\.)*)"\s*', literal)
    if not m:
        return None
    return re.sub(r'\\(.)', lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), m.group(1))


def doc_block(lines, index):
    """The `///` lines right above line `index`, without the slashes."""
    out = []
    i = index - 1
    while i >= 0 and lines[i].lstrip().startswith("///"):
        text = lines[i].lstrip()[3:]
        out.append(text[1:] if text.startswith(" ") else text)
        i -= 1
    return list(reversed(out))


def parse_doc(block, where):
    """(filter documentation, {input key: documentation}) from a `///` block."""
    main, items, current = [], {}, None
    for line in block:
        m = re.match(r"- `?(\w+)`?: ?(.*)$", line)
        if m:
            current = m.group(1)
            if current in items:
                fail(f"{where}: input {current} is documented twice")
            items[current] = [m.group(2)]
        elif current is not None and (line.startswith("  ") or line == ""):
            items[current].append(line[2:])
        elif current is not None:
            fail(f"{where}: after the input items, the line {line!r} belongs to none (indent it by two spaces)")
        else:
            main.append(line)
    text = "\n".join(main).strip()
    def sentence(lines):
        t = "\n".join(lines).strip()
        return t[:1].upper() + t[1:]
    return text, {k: sentence(v) for k, v in items.items()}


def line_of(text, offset):
    return text.count("\n", 0, offset)


class Limit:
    def __init__(self, name, minimum, maximum, reason):
        self.name, self.minimum, self.maximum, self.reason = name, minimum, maximum, reason

    def range_text(self):
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{fmt(lo)}...{fmt(hi)}"
        return f"at least {fmt(lo)}" if lo is not None else f"at most {fmt(hi)}"


class Declaration:
    """One filter as the Swift side declares it."""
    def __init__(self, name, static, index, doc, input_docs, limits, family, path):
        self.name, self.static, self.index = name, static, index
        self.doc, self.input_docs, self.limits, self.family = doc, input_docs, limits, family
        self.path = path

    @property
    def reference(self):
        return f"BuiltinFilters.{self.static}" + (f"[{self.index}]" if self.index is not None else "")


class Family:
    def __init__(self, static, doc, input_docs, limits):
        self.static, self.doc, self.input_docs, self.limits = static, doc, input_docs, limits
        self.members = []


def read_constants(path):
    if not os.path.exists(path):
        return {}
    return dict(re.findall(r'public let (kCI\w+)\s*=\s*"(\w+)"', open(path).read()))


def read_sources(folder):
    files = []
    for dirpath, _, names in os.walk(folder):
        for f in names:
            if f.endswith(".swift") and not f.endswith(".generated.swift"):
                files.append(os.path.join(dirpath, f))
    return [(os.path.relpath(p, ROOT), open(p).read()) for p in sorted(files)]


def read_limits(sources):
    limits = {}
    for path, text in sources:
        for m in re.finditer(r"static let (\w+)\s*=\s*FilterInputLimit\(", code_only(text)):
            open_at = m.end() - 1
            body = text[open_at + 1:matching_close(text, open_at)]
            where = f"{path}:{line_of(text, m.start()) + 1}"
            fields = {}
            for part in split_arguments(body):
                km = re.match(r"\s*(minimum|maximum|reason)\s*:\s*(.*)$", part, re.S)
                if not km:
                    fail(f"{where}: cannot read {part.strip()!r}; write FilterInputLimit(minimum: <number>, maximum: <number>, reason: \"...\")")
                fields[km.group(1)] = km.group(2).strip()
            lo = swift_number(fields["minimum"]) if "minimum" in fields else None
            hi = swift_number(fields["maximum"]) if "maximum" in fields else None
            reason = swift_string(fields.get("reason", ""))
            if ("minimum" in fields and lo is None) or ("maximum" in fields and hi is None) or not reason or (lo is None and hi is None):
                fail(f"{where}: limit {m.group(1)} needs number literals for minimum/maximum and a one-literal reason")
            if lo is not None and hi is not None and lo > hi:
                fail(f"{where}: limit {m.group(1)} has minimum {lo} above maximum {hi}")
            if m.group(1) in limits:
                fail(f"{where}: limit {m.group(1)} is declared twice")
            limits[m.group(1)] = Limit(m.group(1), lo, hi, reason)
    return limits


def split_arguments(body):
    """Top-level comma-separated parts of an argument list."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == '"':
            i += 1
            while i < len(body) and body[i] != '"':
                i += 2 if body[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    if body[start:].strip():
        parts.append(body[start:])
    return parts


def read_limit_map(call, where, constants, limits):
    """{input key: Limit} from the `limits: [...]` argument of a declaration call."""
    m = re.search(r"\blimits:\s*\[", call)
    if not m:
        return {}
    open_at = m.end() - 1
    body = call[open_at + 1:matching_close(call, open_at)]
    out = {}
    for part in split_arguments(body):
        if part.strip() == ":":
            continue
        em = re.fullmatch(r'\s*(kCI\w+|"\w+")\s*:\s*(?:FilterInputLimit)?\.(\w+)\s*', part)
        if not em:
            fail(f"{where}: cannot read the limit {part.strip()!r}; write \"inputKey\": .namedLimit")
        key = constants.get(em.group(1)) if em.group(1).startswith("kCI") else em.group(1).strip('"')
        if key is None:
            fail(f"{where}: unknown constant {em.group(1)}")
        if em.group(2) not in limits:
            fail(f"{where}: no `static let {em.group(2)} = FilterInputLimit(...)` under Filters/")
        out[key] = limits[em.group(2)]
    return out


def read_declarations(sources, constants, limits):
    declarations, families = {}, {}

    def add(decl, where):
        if decl.name in declarations:
            fail(f"{where}: {decl.name} is declared twice")
        declarations[decl.name] = decl

    for path, text in sources:
        lines = text.split("\n")
        for m in re.finditer(r"static let (\w+)\s*=\s*BuiltinFilter(\.family)?\(", code_only(text)):
            static, is_family = m.group(1), m.group(2) is not None
            open_at = m.end() - 1
            call = text[open_at:matching_close(text, open_at) + 1]
            line = line_of(text, m.start())
            where = f"{path}:{line + 1}"
            doc, input_docs = parse_doc(doc_block(lines, line), where)
            limit_map = read_limit_map(call, where, constants, limits)
            if not is_family:
                nm = re.match(r"\(\s*Catalog\.(\w+)", call)
                if not nm:
                    fail(f"{where}: a BuiltinFilter's first argument must be Catalog.<name>")
                add(Declaration(nm.group(1), static, None, doc, input_docs, limit_map, None, path), where)
                continue
            family = Family(static, doc, input_docs, limit_map)
            families[static] = family
            for index, rm in enumerate(re.finditer(r"\(\s*Catalog\.(\w+)\s*,", code_only(call))):
                row_line = line_of(text, open_at + rm.start())
                row_where = f"{path}:{row_line + 1}"
                row_doc, row_inputs = parse_doc(doc_block(lines, row_line), row_where)
                decl = Declaration(rm.group(1), static, index, row_doc, row_inputs, limit_map, family, path)
                family.members.append(decl)
                add(decl, row_where)
            if not family.members:
                fail(f"{where}: the family {static} has no (Catalog.<name>, variant) rows")
    return declarations, families


# MARK: - Apple's attributes

def swift_str(s):
    if s is None:
        return "nil"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def num(v):
    return repr(float(v))


def fmt(v):
    """A number for documentation: whole numbers without a fraction."""
    f = float(v)
    return str(int(f)) if f == int(f) and abs(f) < 1e15 else repr(f)


def value(inp, v):
    cls = inp["class"]
    at = inp.get("attributeType")
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return f".bool({'true' if v else 'false'})"
    if isinstance(v, (int, float)):
        return f".number({num(v)})"
    if isinstance(v, dict):
        if "byteLength" in v:
            return f".data(byteLength: {v['byteLength']})"
        if "colorSpace" in v:
            return f".colorSpace({swift_str(v['colorSpace'])})"
    if isinstance(v, str):
        return f".string({swift_str(v)})"
    if isinstance(v, list):
        items = ", ".join(num(x) for x in v)
        if cls == "CIColor":
            return f".color([{items}])"
        if at == "CIAttributeTypeTransform":
            return f".transform([{items}])"
        return f".vector([{items}])"
    raise ValueError(v)


def doc_value(v):
    """An attribute value as documentation text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return fmt(v)
    if isinstance(v, list):
        return "(" + ", ".join(fmt(x) for x in v) + ")"
    if isinstance(v, dict):
        return f"{v['byteLength']} bytes" if "byteLength" in v else v.get("colorSpace", "")
    return f'"{v}"'


def opt(v):
    return "nil" if v is None else num(v)


def prop_name(key):
    if key == "inputImage":
        return "inputImage"
    k = key[5:] if key.startswith("input") else key
    if k.isupper():
        return k.lower()
    return k[0].lower() + k[1:]


def swift_method_name(objc):
    """How Swift imports an Objective-C selector's leading acronym: QRCodeGenerator ->
    qrCodeGenerator, PDF417BarcodeGenerator -> pdf417BarcodeGenerator, KMeans -> kMeans."""
    n = 0
    while n < len(objc) and objc[n].isupper():
        n += 1
    if n <= 1:
        return objc[:1].lower() + objc[1:]
    if n < len(objc) and objc[n].islower():
        n -= 1
    return objc[:n].lower() + objc[n:]


# Boolean inputs Apple's Swift protocols nevertheless declare as Float.
FLOAT_BOOLEANS = {("CIAztecCodeGenerator", "inputCompactStyle"), ("CIPDF417BarcodeGenerator", "inputCompactStyle"),
                  ("CIPDF417BarcodeGenerator", "inputAlwaysSpecifyCompaction")}


# Integer inputs Apple's Swift protocols declare as Int.
INT_NUMBERS = {("CIPersonSegmentation", "inputQualityLevel")}


def swift_type(inp, filter_name=None):
    cls, at = inp["class"], inp.get("attributeType")
    if cls == "CIImage":
        return "CIImage?", "image"
    if cls == "NSNumber" and (filter_name, inp["key"]) in INT_NUMBERS:
        return "Int", "int"
    if cls == "NSNumber":
        if at == "CIAttributeTypeBoolean" and (filter_name, inp["key"]) not in FLOAT_BOOLEANS:
            return "Bool", "bool"
        return "Float", "float"
    if cls == "CIVector":
        # Offsets are CGPoints in Apple's protocols (CIToneCurve.point0, shadowOffset, ...),
        # except CITemperatureAndTint's neutrals, which stay CIVectors there.
        if at == "CIAttributeTypePosition" or (at == "CIAttributeTypeOffset" and filter_name != "CITemperatureAndTint"):
            return "CGPoint", "point"
        if at == "CIAttributeTypeRectangle":
            return "CGRect", "rect"
        return "CIVector", "vector"
    if cls == "CIColor":
        return "CIColor", "color"
    if at == "CIAttributeTypeTransform":
        return "CGAffineTransform", "transform"
    if cls == "NSData":
        return "Data", "data"
    if cls == "NSString":
        return "String", "string"
    if cls == "NSAttributedString":
        return "NSAttributedString", "attributedString"
    return "Any?", "any"


# Apple's Swift property names where they are not the key without "input".
PROPERTY_NAMES = {("CIBicubicScaleTransform", "inputB"): "parameterB", ("CIBicubicScaleTransform", "inputC"): "parameterC",
                  ("CICMYKHalftone", "inputGCR"): "grayComponentReplacement", ("CICMYKHalftone", "inputUCR"): "underColorRemoval",
                  ("CILineOverlay", "inputNRNoiseLevel"): "NRNoiseLevel", ("CILineOverlay", "inputNRSharpness"): "NRSharpness"}


def typed_property(proto, key):
    return PROPERTY_NAMES.get((proto, key), prop_name(key))


# Apple's parent protocols: what every transition or four-corner geometry filter shares, so
# code can hold any of them as `CIFilter & CITransitionFilter`.
PARENTS = {
    "CITransitionFilter": [("inputImage", "CIImage?", "The image at time 0."),
                           ("targetImage", "CIImage?", "The image at time 1."),
                           ("time", "Float", "How far the transition has gone, 0...1.")],
    "CIFourCoordinateGeometryFilter": [("inputImage", "CIImage?", "The image to map."),
                                       ("topLeft", "CGPoint", "Where the image's top-left corner goes."),
                                       ("topRight", "CGPoint", "Where the image's top-right corner goes."),
                                       ("bottomRight", "CGPoint", "Where the image's bottom-right corner goes."),
                                       ("bottomLeft", "CGPoint", "Where the image's bottom-left corner goes.")],
}


def parent_of(props):
    for parent, required in PARENTS.items():
        if all((p, t) in props for p, t, _ in required):
            return parent
    return None


# MARK: - Documentation text

def comment(text, indent):
    return [f"{indent}///" + (f" {line}" if line else "") for line in text.split("\n")]


def without_name(doc, name):
    """A declaration's documentation without its leading "CIName: " (the symbol names it)."""
    if doc.startswith(name + ": "):
        rest = doc[len(name) + 2:]
        return rest[:1].upper() + rest[1:]
    return doc


def full_doc(d):
    """A filter's documentation: its own, then its family's."""
    return "\n\n".join(t for t in [without_name(d.doc, d.name), d.family.doc if d.family else ""] if t)


def unwrapped(text):
    """Documentation for the descriptor (shown by `cyanotype describe`): the hard-wrapped lines
    of each paragraph joined; list items and indented lines keep their own lines."""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        lines = []
        for line in paragraph.split("\n"):
            if lines and not line.startswith(("- ", "  ")):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def attribute_text(inp):
    """Apple's attributes of an input, in one sentence."""
    parts = []
    if inp["class"] == "CIImage":
        return None
    if "default" in inp:
        parts.append(f"default {doc_value(inp['default'])}")
    if "identity" in inp:
        parts.append(f"identity {doc_value(inp['identity'])}")
    if "min" in inp and "max" in inp:
        parts.append(f"range {fmt(inp['min'])}...{fmt(inp['max'])}")
    elif "min" in inp:
        parts.append(f"minimum {fmt(inp['min'])}")
    elif "max" in inp:
        parts.append(f"maximum {fmt(inp['max'])}")
    if "sliderMin" in inp and "sliderMax" in inp:
        parts.append(f"slider {fmt(inp['sliderMin'])}...{fmt(inp['sliderMax'])}")
    kind = inp["attributeType"].replace("CIAttributeType", "").lower() if inp.get("attributeType") else inp["class"]
    return f"Core Image: `{inp['key']}`, {kind}" + ("; " + ", ".join(parts) if parts else "") + "."


def limit_text(inp, limit):
    what = "each coordinate" if inp["class"] == "CIVector" else "it"
    if limit.minimum is not None and limit.maximum is not None:
        return f"Cyanotype limits {what} to {limit.range_text()}: {limit.reason}."
    return f"Cyanotype uses {limit.range_text()}{' for each coordinate' if what != 'it' else ''}: {limit.reason}."


def default_input_doc(inp):
    if inp["key"] == "inputImage":
        return "The image to filter." if inp["class"] == "CIImage" else None
    name = inp.get("displayName") or prop_name(inp["key"])
    return f"{name}{' (an image)' if inp['class'] == 'CIImage' else ''}."


def input_doc(d, key):
    """An input's documentation in a filter's declaration, else in its family's."""
    return d.input_docs.get(key) or (d.family.input_docs.get(key) if d.family else None)


def property_doc(members, key, family_docs):
    """Documentation of one typed property, for the filters sharing it."""
    own = family_docs.get(key)
    if own is None:
        own = next((input_doc(d, key) for d, _ in members if input_doc(d, key)), None)
    first = next(i for i in members[0][1]["inputs"] if i["key"] == key)
    text = [own or default_input_doc(first) or ""]
    attributes = {attribute_text(next(i for i in f["inputs"] if i["key"] == key)) for _, f in members}
    if len(attributes) == 1:
        a = attributes.pop()
        if a:
            text.append(a)
    else:
        text.append(f"Core Image: `{key}`; each filter has its own default and range (see its `attributes`).")
    limits = {(d.limits.get(key).name if d.limits.get(key) else None) for d, _ in members}
    if len(limits) == 1:
        limit = members[0][0].limits.get(key)
        if limit:
            text.append(limit_text(first, limit))
    else:
        text.append("Cyanotype limits it for some of these filters: see `FilterInputDescriptor.limit`.")
    return "\n\n".join(t for t in text if t)


# MARK: - Generating

HEADER = ["// Generated by scripts/generate-catalog.py from spec/coreimage-filters.json (and spec/cyanotype-filters.json)",
          "// and the filters' declarations under Sources/Cyanotype/Filters. Do not edit.",
          "// swift-format-ignore-file"]


def group_of(declaration, filters_folder):
    """The folder under Filters/ that declares the filter (its category of files): the
    generated file its descriptor, protocol and typed class go to."""
    relative = os.path.relpath(os.path.join(ROOT, declaration.path), filters_folder)
    parts = relative.split(os.sep)
    return parts[0] if len(parts) > 1 else "Other"


def generate(spec, declarations, families, filters_folder):
    """{file name: text}: Catalog.generated.swift (the registry and what the groups share), and
    per folder of declarations under Filters/, Catalog+<Folder>.generated.swift with those
    filters' descriptors and CIFilterBuiltins+<Folder>.generated.swift with their typed
    protocols, classes and factories."""
    names = sorted(declarations)
    singles = sorted((n for n in names if declarations[n].family is None), key=lambda n: n)
    groups, typed = {}, {}
    def group(name):
        return groups.setdefault(group_of(declarations[name], filters_folder), [])
    def typed_group(name):
        return typed.setdefault(group_of(declarations[name], filters_folder), [])

    core = HEADER + ["",
            "/// Declarations of the built-in filters: Apple's names, keys, defaults, ranges and categories,",
            "/// with our documentation from each filter's Swift declaration (one file per folder of",
            "/// declarations, Catalog+<Folder>.generated.swift).",
            "enum Catalog {}"]
    for name in names:
        f, d = spec[name], declarations[name]
        av = f.get("availability") or {}
        out = group(name)
        out.append(f"    static let {name} = FilterDescriptor(")
        out.append(f"        name: {swift_str(name)}, displayName: {swift_str(f['displayName'])},")
        out.append(f"        summary: {swift_str(f.get('summary') or '')},")
        out.append(f"        categories: [{', '.join(swift_str(c) for c in f['categories'])}],")
        out.append("        inputs: [")
        for i in f["inputs"]:
            doc = input_doc(d, i["key"])
            out.append(f"            FilterInputDescriptor(key: {swift_str(i['key'])}, displayName: {swift_str(i.get('displayName'))}, "
                       f"className: {swift_str(i['class'])}, attributeType: {swift_str(i.get('attributeType'))}, "
                       f"defaultValue: {value(i, i.get('default'))}, identity: {value(i, i.get('identity'))}, "
                       f"minimum: {opt(i.get('min'))}, maximum: {opt(i.get('max'))}, "
                       f"sliderMinimum: {opt(i.get('sliderMin'))}, sliderMaximum: {opt(i.get('sliderMax'))}"
                       + (f", documentation: {swift_str(unwrapped(doc))}" if doc else "") + "),")
        out.append("        ],")
        out.append(f"        outputKeys: [{', '.join(swift_str(k) for k in f['outputKeys'])}],")
        documentation = full_doc(d)
        out.append(f"        availableMacOS: {swift_str(av.get('macOS'))}, availableIOS: {swift_str(av.get('iOS'))}"
                   + (f",\n        documentation: {swift_str(unwrapped(documentation))})" if documentation else ")"))
    for lines in groups.values():
        lines.insert(0, "extension Catalog {")
        lines.append("}")
    core.append("")
    core.append("extension BuiltinFilters {")
    core.append("    /// Every implemented built-in, registered by `CIFilter(name:)`.")
    core.append("    static let all: [BuiltinFilter] = [")
    for name in singles:
        core.append(f"        {declarations[name].static},")
    core.append("    ]" + "".join(f" + {s}" for s in sorted(families)))
    core.append("}")

    # Apple's typed protocols, some shared by several filters (all blend modes are
    # CICompositeOperation, the ten convolutions CIConvolution): each declared once, from the
    # first member, in that member's group; the members must agree on their properties.
    protocols = {}
    for name in names:
        f = spec[name]
        b = f.get("builtins")
        if not b:
            continue
        proto = b.get("protocol") or name
        props = [(typed_property(proto, i["key"]), swift_type(i, name)[0]) for i in f["inputs"]]
        if proto in protocols:
            if protocols[proto]["props"] != props:
                fail(f"{name}: properties {props} differ from {protocols[proto]['members'][0][0].name}'s for protocol {proto}")
            protocols[proto]["members"].append((declarations[name], f))
            continue
        protocols[proto] = {"props": props, "members": [(declarations[name], f)]}

    emitted_parents = set()
    for proto in sorted(protocols, key=lambda p: protocols[p]["members"][0][0].name):
        props, members = protocols[proto]["props"], protocols[proto]["members"]
        first_decl, first = members[0]
        out = typed_group(first_decl.name)
        parent = parent_of(props)
        if parent and parent not in emitted_parents:
            emitted_parents.add(parent)
            core.append("")
            core.append(f"/// What Apple's {parent} filters share.")
            core.append(f"public protocol {parent}: CIFilterProtocol {{")
            for p, t, doc in PARENTS[parent]:
                core.extend(comment(doc, "    "))
                core.append(f"    var {p}: {t} {{ get set }}")
            core.append("}")
        out.append("")
        families_of = {d.family.static for d, _ in members if d.family}
        shared_family = families[families_of.pop()] if len(families_of) == 1 and all(d.family for d, _ in members) else None
        if len(members) == 1:
            out.append(f"/// Typed access to the inputs of {first_decl.name}.")
            doc = full_doc(first_decl)
        else:
            out.append(f"/// Typed access to the inputs of {first_decl.name} and the other {proto} filters.")
            doc = shared_family.doc if shared_family else ""
        if doc:
            out.append("///")
            out.extend(comment(doc, ""))
        out.append(f"public protocol {proto}: {parent or 'CIFilterProtocol'} {{")
        family_docs = shared_family.input_docs if shared_family else {}
        parent_props = {p for p, _, _ in PARENTS.get(parent, [])}
        for i, (p, t) in enumerate(props):
            if p in parent_props:
                continue
            out.extend(comment(property_doc(members, first["inputs"][i]["key"], family_docs), "    "))
            out.append(f"    var {p}: {t} {{ get set }}")
        out.append("}")

    for name in names:
        f, d = spec[name], declarations[name]
        b = f.get("builtins")
        if not b:
            continue
        out = typed_group(name)
        proto = b.get("protocol") or name
        factory = b["objcFactory"]
        if factory.endswith("Filter"):
            factory = factory[: -len("Filter")]
        factory = swift_method_name(factory)
        cls = f"{name}BuiltinFilter"
        out.append("")
        out.append(f"final class {cls}: CIFilter, {proto} {{")
        out.append(f"    override init() {{ super.init(builtin: {d.reference}) }}")
        for i in f["inputs"]:
            t, kind = swift_type(i, name)
            key = swift_str(i["key"])
            p = typed_property(proto, i["key"])
            out.append(f"    var {p}: {t} {{")
            out.append(f"        get {{ typedValue(forKey: {key}, as: {t.rstrip('?')}.self) }}")
            out.append(f"        set {{ setValue(newValue, forKey: {key}) }}")
            out.append("    }")
        out.append("}")
        out.append("")
        out.append("extension CIFilter {")
        out.append(f"    /// {f['displayName']}: {f.get('summary') or ''}")
        doc = full_doc(d)
        if doc:
            out.append("    ///")
            out.extend(comment(doc, "    "))
        out.append(f"    public static func {factory}() -> CIFilter & {proto} {{ {cls}() }}")
        out.append("}")

    # CIFilter(name:) hands out the typed class, so `as? CIFilter & CISepiaTone` holds as in Core Image.
    core.append("")
    core.append("extension BuiltinFilters {")
    core.append("    /// The typed class behind each built-in name that has one.")
    core.append("    static let typed: [String: @Sendable () -> CIFilter] = [")
    for name in names:
        if spec[name].get("builtins"):
            core.append(f"        {swift_str(name)}: {{ {name}BuiltinFilter() }},")
    core.append("    ]")
    core.append("}")
    files = {"Catalog.generated.swift": "\n".join(core) + "\n"}
    for folder, lines in sorted(groups.items()):
        files[f"Catalog+{folder}.generated.swift"] = "\n".join(HEADER + [""] + lines) + "\n"
    for folder, lines in sorted(typed.items()):
        files[f"CIFilterBuiltins+{folder}.generated.swift"] = "\n".join(HEADER + lines) + "\n"
    return files


def check(spec, declarations, families):
    """Every declaration names a spec entry, and documents or limits only inputs it has."""
    for name, d in declarations.items():
        if name not in spec:
            fail(f"{name} is in neither spec file (Apple's filters: spec/coreimage-filters.json; ours: spec/cyanotype-filters.json)")
        keys = {i["key"]: i for i in spec[name]["inputs"]}
        for key in d.input_docs:
            if key not in keys:
                fail(f"{name} documents an input {key} it does not have (its inputs: {', '.join(keys)})")
        for key in d.limits:
            if d.family is None and key not in keys:
                fail(f"{name} limits an input {key} it does not have")
            if key in keys and keys[key]["class"] not in ("NSNumber", "CIVector"):
                fail(f"{name}: {key} is not a number or a vector; only those take limits")
    for static, family in families.items():
        member_keys = set()
        for d in family.members:
            member_keys |= {i["key"] for i in spec[d.name]["inputs"]}
        for key in list(family.input_docs) + list(family.limits):
            if key not in member_keys:
                fail(f"family {static} documents or limits an input {key} none of its filters has")
    for d in declarations.values():
        if d.family:
            d.limits = {k: v for k, v in d.limits.items() if any(i["key"] == k for i in spec[d.name]["inputs"])}


def main():
    parser = argparse.ArgumentParser(description="Generates the built-in filter catalogue.")
    parser.add_argument("--spec", action="append", help="a spec file (default: Apple's, and ours when present)")
    parser.add_argument("--filters", default=FILTERS, help="the folder of filter declarations")
    parser.add_argument("--constants", default=CONSTANTS, help="the Swift file defining the kCI...Key constants")
    parser.add_argument("--out", default=OUT, help="the folder to write the catalogue's files into")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it; exit 1 when it differs")
    options = parser.parse_args()

    spec_files = options.spec or [APPLE_SPEC] + ([OUR_SPEC] if os.path.exists(OUR_SPEC) else [])
    spec = {}
    for path in spec_files:
        for f in json.load(open(path)):
            if f["name"] in spec:
                fail(f"{f['name']} is declared by two spec files")
            spec[f["name"]] = f
    filters_folder = os.path.abspath(options.filters)
    sources = read_sources(filters_folder)
    limits = read_limits(sources)
    declarations, families = read_declarations(sources, read_constants(options.constants), limits)
    check(spec, declarations, families)
    files = generate(spec, declarations, families, filters_folder)
    os.makedirs(options.out, exist_ok=True)
    old = {f for f in os.listdir(options.out) if f.endswith(".generated.swift")}
    where = os.path.relpath(options.out, ROOT)
    if options.check:
        stale = sorted(f for f, text in files.items()
                       if not os.path.exists(os.path.join(options.out, f)) or open(os.path.join(options.out, f)).read() != text)
        stale += sorted(old - set(files))
        if stale:
            sys.exit(f"{where}: {', '.join(stale)} stale: run python3 scripts/generate-catalog.py")
        print(f"{where} is up to date: {len(declarations)} filters in {len(files)} files")
        return
    for name in old - set(files):
        os.remove(os.path.join(options.out, name))
    for name, text in files.items():
        with open(os.path.join(options.out, name), "w") as f:
            f.write(text)
    print(f"wrote {len(files)} files into {where}: {len(declarations)} filters")


if __name__ == "__main__":
    main()
