#!/usr/bin/env python3
"""Generates Sources/Cyanotype/Filters/Catalog/*.generated.swift from the filter tables: the
`FilterDescriptor(...)` literal each built-in declares beside its maths under
Sources/Cyanotype/Filters (see BuiltinFilters.swift and FilterTable.swift):

    /// CIGaussianBlur: Blurs with a Gaussian kernel.
    static let gaussianBlur = BuiltinFilter(
        FilterDescriptor(
            "CIGaussianBlur", "Gaussian Blur", "Blurs with a Gaussian kernel.",
            categories: [.blur, .builtIn], macOS: "10.4", iOS: "6", factory: "gaussianBlur",
            doc: "What ours does.",
            inputs: [.image(), .number("inputRadius", "Radius", .distance, default: 10, min: 0, limit: .gaussianSigma, "The sigma.")]),
        reach: .gaussian) { args ... }

or a family, `BuiltinFilter.family(doc: "...", categories: [...], protocol: "...", inputs: [...], [(FilterDescriptor(...), variant), ...]) { ... }`
(the family's categories and protocol stand for a row's where it gives none; its inputs follow each row's own; a row
may instead take an earlier row's inputs with `inputsLike: "CIName"`).
A limit is a named `static let NAME = FilterInputLimit(minimum: <number>, maximum: <number>,
reason: "...")` under Filters/; the Swift side applies it, this script quotes it.

The descriptors themselves are the Swift tables (no file here holds them). This script writes
what Swift cannot derive at run time:
  - per folder under Filters/, CIFilterBuiltins+<Folder>.generated.swift: Apple's typed
    protocols (`protocol CIName`, shared where Apple shares them), a CIFilter subclass with
    typed properties and the `CIFilter.name()` factory, documented from the tables;
  - Catalog.generated.swift: the registry (`BuiltinFilters.all`, `BuiltinFilters.typed`) and the
    protocols several groups share.

Run it after changing a table: python3 scripts/generate-catalog.py
FilterDeclarationTests fails when the committed files differ. Options: --filters DIR, --out DIR,
--check (exit 1 when the files in --out differ instead of writing them).
"""
import argparse, copy, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILTERS = os.path.join(ROOT, "Sources", "Cyanotype", "Filters")
OUT = os.path.join(FILTERS, "Catalog")


def fail(message):
    sys.exit(f"generate-catalog: {message}")


# MARK: - Reading the Swift tables

TOKEN = re.compile(r'''(?P<space>\s+|//[^\n]*|/\*.*?\*/)|(?P<mstr>"""(?:[^\\]|\\.)*?""")|(?P<str>"(?:[^"\\\n]|\\.)*")|'''
                   r'''(?P<num>0x[0-9a-fA-F_.]+(?:[pP][-+]?\d+)?|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][-+]?\d+)?)|(?P<range>\.\.\.|\.\.<)|'''
                   r'''(?P<id>`?[A-Za-z_]\w*`?)|(?P<op>.)''', re.S)


def unescape(s):
    return re.sub(r'\\(.)', lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), s)


def string_value(tok):
    if not tok.startswith('"""'):
        return unescape(tok[1:-1])
    lines = tok[3:-3].split("\n")
    indent = lines[-1]
    if lines[0].strip() or indent.strip():
        fail(f"a multi-line string must open and close on lines of their own: {tok[:60]!r}")
    return unescape("\n".join(l[len(indent):] if l.startswith(indent) else l.strip() for l in lines[1:-1]))


class Call:
    def __init__(self, name, args):
        self.name, self.args = name, args
        self.positional = [v for k, v in args if k is None]
        self.labeled = {k: v for k, v in args if k is not None}


class Member:
    def __init__(self, name):
        self.name = name


class Parser:
    def __init__(self, text, where):
        self.tokens = [(m.lastgroup, m.group()) for m in TOKEN.finditer(text) if m.lastgroup != "space"]
        self.i, self.where = 0, where

    def peek(self, k=0):
        return self.tokens[self.i + k] if self.i + k < len(self.tokens) else (None, None)

    def take(self, expected=None):
        kind, tok = self.peek()
        if expected is not None and tok != expected:
            fail(f"{self.where}: expected {expected!r} before {tok!r}")
        self.i += 1
        return tok

    def args(self, close):
        out = []
        while self.peek()[1] != close:
            label = None
            if self.peek()[0] == "id" and self.peek(1)[1] == ":":
                label = self.take().strip("`")
                self.take(":")
            out.append((label, self.expr()))
            self.skip_rest(close)
            if self.peek()[1] == ",":
                self.take()
        self.take(close)
        return out

    def skip_rest(self, close):
        """Skips what follows an argument up to its comma (`as [...]`, an operator)."""
        depth = 0
        while True:
            kind, tok = self.peek()
            if tok is None:
                fail(f"{self.where}: unbalanced brackets")
            if depth == 0 and tok in (",", close):
                return
            depth += tok in "([{" if kind == "op" else 0
            depth -= tok in ")]}" if kind == "op" else 0
            self.take()

    def expr(self):
        kind, tok = self.peek()
        if kind == "num" or (tok == "-" and self.peek(1)[0] == "num"):
            sign = -1.0 if tok == "-" and self.take() else 1.0
            text = self.take().replace("_", "")
            value = sign * (float.fromhex(text) if text.lower().startswith("0x") else float(text))
        elif kind in ("str", "mstr"):
            value = string_value(self.take())
        elif tok in ("nil", "true", "false"):
            value = {"nil": None, "true": True, "false": False}[self.take()]
        elif tok == "[":
            self.take()
            value = [v for _, v in self.args("]")]
        elif tok == "(":
            self.take()
            value = tuple(v for _, v in self.args(")"))
            value = value[0] if len(value) == 1 else value
        else:
            name = ""
            if tok == ".":
                name = self.take()
            name += self.take().strip("`")
            while self.peek()[1] == "." and self.peek(1)[0] == "id":
                name += self.take() + self.take()
            value = Call(name, self.args(")")) if self.peek()[1] == "(" and self.take() else Member(name)
        if self.peek()[0] == "range":
            self.take()
            value = (value, self.expr() if self.peek()[0] == "num" or self.peek()[1] in ("-", "(") else None)
        return value


def matching_close(text, start):
    """Index of the bracket closing the one at `start`, skipping comments and strings."""
    depth = 0
    for m in TOKEN.finditer(text, start):
        if m.lastgroup == "op":
            depth += m.group() in "([{"
            depth -= m.group() in ")]}"
            if depth == 0:
                return m.start()
    fail(f"no closing bracket for the one at offset {start}")


def code_only(text):
    """The text with comments and strings blanked out (same offsets), for finding declarations."""
    return TOKEN.sub(lambda m: re.sub(r"[^\n]", " ", m.group()) if m.lastgroup in ("space", "str", "mstr") else m.group(), text)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


class Limit:
    def __init__(self, name, minimum, maximum, reason):
        self.name, self.minimum, self.maximum, self.reason = name, minimum, maximum, reason

    def range_text(self):
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{fmt(lo)}...{fmt(hi)}"
        return f"at least {fmt(lo)}" if lo is not None else f"at most {fmt(hi)}"


class Declaration:
    """One filter's table, where it is declared."""
    def __init__(self, table, static, index, family, path):
        self.table, self.static, self.index, self.family, self.path = table, static, index, family, path
        self.name = table["name"]

    @property
    def reference(self):
        return f"BuiltinFilters.{self.static}" + (f"[{self.index}]" if self.index is not None else "")


def read_sources(folder):
    files = []
    for dirpath, _, names in os.walk(folder):
        files += [os.path.join(dirpath, f) for f in names if f.endswith(".swift") and not f.endswith(".generated.swift")]
    return [(os.path.relpath(p, ROOT), open(p).read()) for p in sorted(files)]


def read_limits(sources):
    limits = {}
    for path, text in sources:
        for m in re.finditer(r"static let (\w+)\s*=\s*FilterInputLimit\(", code_only(text)):
            where = f"{path}:{line_of(text, m.start())}"
            parser = Parser(text[m.end():matching_close(text, m.end() - 1) + 1], where)
            fields = dict(parser.args(")"))
            lo, hi, reason = fields.get("minimum"), fields.get("maximum"), fields.get("reason")
            if not all(isinstance(v, (float, type(None))) for v in (lo, hi)) or not isinstance(reason, str) or lo is hi is None:
                fail(f"{where}: write FilterInputLimit(minimum: <number>, maximum: <number>, reason: \"...\")")
            if m.group(1) in limits:
                fail(f"{where}: limit {m.group(1)} is declared twice")
            limits[m.group(1)] = Limit(m.group(1), lo, hi, reason)
    return limits


def cap(member, prefix):
    if not isinstance(member, Member) or not member.name.startswith("."):
        fail(f"expected a .member, not {member!r}")
    name = member.name[1:]
    return prefix + ("XMPSerializable" if name == "xmpSerializable" else name[:1].upper() + name[1:])


# Each input builder's positional parameters, its class and attribute type where fixed.
BUILDERS = {".image": (["key", "displayName", "doc"], "CIImage"), ".number": (["key", "displayName", "type", "doc"], "NSNumber"),
            ".bool": (["key", "displayName", "doc"], "NSNumber"), ".vector": (["key", "displayName", "type", "doc"], "CIVector"),
            ".color": (["key", "displayName", "type", "doc"], "CIColor"), ".other": (["class", "key", "displayName", "type", "doc"], None)}


def attribute_value(v):
    if isinstance(v, Call):
        inner = v.labeled.get("byteLength")
        return {"byteLength": int(inner)} if inner is not None else {"colorSpace": v.positional[0]} if v.name == ".colorSpace" else v.positional[0]
    return v


def read_input(call, limits, where):
    if not isinstance(call, Call) or call.name not in BUILDERS:
        fail(f"{where}: an input is one of {', '.join(BUILDERS)}(...), not {getattr(call, 'name', call)!r}")
    names, cls = BUILDERS[call.name]
    fields = dict(zip(names, call.positional))
    if len(call.positional) > len(names):
        fail(f"{where}: {call.name} takes at most {len(names)} unlabeled arguments")
    inp = {"key": fields.get("key", "inputImage"), "class": fields.get("class", cls)}
    display = fields.get("displayName", "Image" if call.name == ".image" else None)
    if display is not None:
        inp["displayName"] = display
    at = call.labeled.get("type", Member(".image")) if call.name == ".image" else fields.get("type", Member(".boolean") if call.name == ".bool" else None)
    if at is not None:
        inp["attributeType"] = cap(at, "CIAttributeType")
    for label in ("default", "identity", "min", "max"):
        if call.labeled.get(label) is not None:
            inp[label] = attribute_value(call.labeled[label])
    if "slider" in call.labeled:
        inp["sliderMin"], inp["sliderMax"] = call.labeled["slider"]
    limit = call.labeled.get("limit")
    if limit is not None and limit.name[1:] not in limits:
        fail(f"{where}: no `static let {limit.name[1:]} = FilterInputLimit(...)` under Filters/")
    return inp, fields.get("doc"), limits[limit.name[1:]] if limit is not None else None


def read_table(call, limits, where, family=None, earlier=None):
    """A FilterDescriptor(...) literal's table; a family's row takes the family's categories
    and protocol where it gives none and the family's inputs after its own, or all the inputs
    of an earlier row of the family (`inputsLike: "CIName"`, found in `earlier` by name)."""
    if not isinstance(call, Call) or call.name != "FilterDescriptor":
        fail(f"{where}: a built-in's first argument must be its table, a FilterDescriptor(...) literal")
    name, display, summary = call.positional[:3]
    t = call.labeled
    shared = family.labeled if family else {}
    categories = t.get("categories") or shared.get("categories", [])
    table = {"name": name, "displayName": display, "summary": summary, "categories": [cap(c, "CICategory") for c in categories],
             "doc": t.get("doc", ""), "inputs": [], "docs": {}, "limits": {}}
    if t.get("factory"):
        table["builtins"] = {"factory": t["factory"], "protocol": t.get("protocol") or shared.get("protocol") or name}
    like = t.get("inputsLike")
    if like is not None:
        model = (earlier or {}).get(like)
        if model is None or t.get("inputs"):
            fail(f"{where} ({name}): inputsLike names no earlier row of its family, or the row lists inputs too")
        for field in ("inputs", "docs", "limits"):
            table[field] = copy.deepcopy(model[field])
        return table
    for c in t.get("inputs", []) + shared.get("inputs", []):
        inp, doc, limit = read_input(c, limits, f"{where} ({name})")
        table["inputs"].append(inp)
        if doc:
            table["docs"][inp["key"]] = doc
        if limit:
            table["limits"][inp["key"]] = limit
    return table


def read_declarations(sources, limits):
    declarations, families = {}, {}

    def add(decl, where):
        if decl.name in declarations:
            fail(f"{where}: {decl.name} is declared twice")
        declarations[decl.name] = decl

    for path, text in sources:
        for m in re.finditer(r"static let (\w+)\s*=\s*BuiltinFilter(\.family)?\(", code_only(text)):
            static, where = m.group(1), f"{path}:{line_of(text, m.start())}"
            call = Call("", Parser(text[m.end():matching_close(text, m.end() - 1) + 1], where).args(")"))
            if m.group(2) is None:
                add(Declaration(read_table(call.positional[0], limits, where), static, None, None, path), where)
                continue
            families[static] = call.labeled.get("doc", "")
            earlier = {}
            for index, row in enumerate(call.positional[0]):
                table = read_table(row[0], limits, where, family=call, earlier=earlier)
                earlier[table["name"]] = table
                add(Declaration(table, static, index, static, path), where)
    return declarations, families


# MARK: - Typed API

def fmt(v):
    """A number for documentation: whole numbers without a fraction."""
    f = float(v)
    return str(int(f)) if f == int(f) and abs(f) < 1e15 else repr(f)


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


def prop_name(key):
    if key == "inputImage":
        return "inputImage"
    k = key[5:] if key.startswith("input") else key
    if k.isupper():
        return k.lower()
    return k[0].lower() + k[1:]
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


def full_doc(d, families):
    """A filter's documentation: its own, then its family's."""
    return "\n\n".join(t for t in [d.table["doc"], families[d.family] if d.family else ""] if t)


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


def property_doc(members, key):
    """Documentation of one typed property, for the filters sharing it."""
    own = next((d.table["docs"][key] for d in members if key in d.table["docs"]), None)
    first = next(i for i in members[0].table["inputs"] if i["key"] == key)
    text = [own or default_input_doc(first) or ""]
    attributes = {attribute_text(next(i for i in d.table["inputs"] if i["key"] == key)) for d in members}
    if len(attributes) == 1:
        text.append(attributes.pop() or "")
    else:
        text.append(f"Core Image: `{key}`; each filter has its own default and range (see its `attributes`).")
    limits = {(d.table["limits"][key].name if key in d.table["limits"] else None) for d in members}
    if len(limits) == 1:
        limit = members[0].table["limits"].get(key)
        if limit:
            text.append(limit_text(first, limit))
    else:
        text.append("Cyanotype limits it for some of these filters: see `FilterInputDescriptor.limit`.")
    return "\n\n".join(t for t in text if t)


# MARK: - Generating

HEADER = ["// Generated by scripts/generate-catalog.py from the filter tables under Sources/Cyanotype/Filters.",
          "// Do not edit.",
          "// swift-format-ignore-file"]


def group_of(declaration, filters_folder):
    """The folder under Filters/ that declares the filter: the file its typed API goes to."""
    parts = os.path.relpath(os.path.join(ROOT, declaration.path), filters_folder).split(os.sep)
    return parts[0] if len(parts) > 1 else "Other"


def generate(declarations, families, filters_folder):
    """{file name: text}: Catalog.generated.swift (the registry and the shared protocols), and
    per folder under Filters/, CIFilterBuiltins+<Folder>.generated.swift with its filters' typed
    protocols, classes and factories."""
    names = sorted(declarations)
    typed = {}
    core = HEADER + ["", "extension BuiltinFilters {", "    /// Every implemented built-in, registered by `CIFilter(name:)`.",
                     "    static let all: [BuiltinFilter] = ["]
    core += [f"        {declarations[n].static}," for n in names if declarations[n].family is None]
    core += ["    ]" + "".join(f" + {s}" for s in sorted(families)), "}"]

    # Apple's typed protocols, some shared by several filters (all blend modes are
    # CICompositeOperation, the ten convolutions CIConvolution): each declared once, from the
    # first member, in that member's group; the members must agree on their properties.
    protocols = {}
    for name in names:
        d = declarations[name]
        b = d.table.get("builtins")
        if not b:
            continue
        props = [(typed_property(b["protocol"], i["key"]), swift_type(i, name)[0]) for i in d.table["inputs"]]
        entry = protocols.setdefault(b["protocol"], {"props": props, "members": []})
        if entry["props"] != props:
            fail(f"{name}: properties {props} differ from {entry['members'][0].name}'s for protocol {b['protocol']}")
        entry["members"].append(d)

    emitted_parents = set()
    for proto in sorted(protocols, key=lambda p: protocols[p]["members"][0].name):
        props, members = protocols[proto]["props"], protocols[proto]["members"]
        first = members[0]
        out = typed.setdefault(group_of(first, filters_folder), [])
        parent = parent_of(props)
        if parent and parent not in emitted_parents:
            emitted_parents.add(parent)
            core += ["", f"/// What Apple's {parent} filters share.", f"public protocol {parent}: CIFilterProtocol {{"]
            for p, t, doc in PARENTS[parent]:
                core += comment(doc, "    ") + [f"    var {p}: {t} {{ get set }}"]
            core.append("}")
        out.append("")
        shared = {d.family for d in members}
        if len(members) == 1:
            out.append(f"/// Typed access to the inputs of {first.name}.")
            doc = full_doc(first, families)
        else:
            out.append(f"/// Typed access to the inputs of {first.name} and the other {proto} filters.")
            doc = families[first.family] if len(shared) == 1 and first.family else ""
        if doc:
            out += ["///"] + comment(doc, "")
        out.append(f"public protocol {proto}: {parent or 'CIFilterProtocol'} {{")
        parent_props = {p for p, _, _ in PARENTS.get(parent, [])}
        for i, (p, t) in enumerate(props):
            if p not in parent_props:
                out += comment(property_doc(members, first.table["inputs"][i]["key"]), "    ") + [f"    var {p}: {t} {{ get set }}"]
        out.append("}")

    for name in names:
        d = declarations[name]
        b = d.table.get("builtins")
        if not b:
            continue
        out, proto, cls = typed[group_of(d, filters_folder)] if group_of(d, filters_folder) in typed else typed.setdefault(group_of(d, filters_folder), []), b["protocol"], f"{name}BuiltinFilter"
        out += ["", f"final class {cls}: CIFilter, {proto} {{", f"    override init() {{ super.init(builtin: {d.reference}) }}"]
        for i in d.table["inputs"]:
            t, key = swift_type(i, name)[0], '"' + i["key"] + '"'
            out += [f"    var {typed_property(proto, i['key'])}: {t} {{", f"        get {{ typedValue(forKey: {key}, as: {t.rstrip('?')}.self) }}",
                    f"        set {{ setValue(newValue, forKey: {key}) }}", "    }"]
        out += ["}", "", "extension CIFilter {", f"    /// {d.table['displayName']}: {d.table['summary']}"]
        doc = full_doc(d, families)
        if doc:
            out += ["    ///"] + comment(doc, "    ")
        out += [f"    public static func {b['factory']}() -> CIFilter & {proto} {{ {cls}() }}", "}"]

    # CIFilter(name:) hands out the typed class, so `as? CIFilter & CISepiaTone` holds as in Core Image.
    core += ["", "extension BuiltinFilters {", "    /// The typed class behind each built-in name that has one.",
             "    static let typed: [String: @Sendable () -> CIFilter] = ["]
    core += [f'        "{n}": {{ {n}BuiltinFilter() }},' for n in names if declarations[n].table.get("builtins")]
    core += ["    ]", "}"]
    files = {"Catalog.generated.swift": "\n".join(core) + "\n"}
    for folder, lines in sorted(typed.items()):
        files[f"CIFilterBuiltins+{folder}.generated.swift"] = "\n".join(HEADER + lines) + "\n"
    return files


def main():
    parser = argparse.ArgumentParser(description="Generates the typed API and registry of the built-in filters from their tables.")
    parser.add_argument("--filters", default=FILTERS, help="the folder of filter declarations")
    parser.add_argument("--out", default=OUT, help="the folder to write the generated files into")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it; exit 1 when it differs")
    options = parser.parse_args()
    filters_folder = os.path.abspath(options.filters)
    sources = read_sources(filters_folder)
    declarations, families = read_declarations(sources, read_limits(sources))
    files = generate(declarations, families, filters_folder)
    os.makedirs(options.out, exist_ok=True)
    old = {f for f in os.listdir(options.out) if f.endswith(".generated.swift")}
    where = os.path.relpath(options.out, ROOT)
    if options.check:
        stale = sorted(f for f, text in files.items()
                       if not os.path.exists(os.path.join(options.out, f)) or open(os.path.join(options.out, f)).read() != text)
        if stale or old - set(files):
            sys.exit(f"{where}: {', '.join(stale + sorted(old - set(files)))} stale: run python3 scripts/generate-catalog.py")
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
