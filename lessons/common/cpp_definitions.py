"""What a C++ source file defines and what it only declares, read well enough to confirm a
lesson's citation of library code (check_library_references.py).

This is not a C++ parser. It strips comments, string and character literals and preprocessor
lines, splits the rest into tokens and follows the braces, so that it knows at every `{`
whether a namespace, a class or a function body opens. At namespace and class scope it
records:

* a class (`class A {`, `struct A : B {`) and a forward declaration (`class A;`);
* a function definition: a name followed by its parameters and then a body,
  `Tensor Mlp1D::forward(const Tensor& x) {` or, inside `struct A`, `void f() const {`;
* a function declaration: the same without a body, `Tensor forward(const Tensor& x) override;`.

Names inside function bodies (calls, locals, lambdas) are never recorded, nor names in
comments or strings, so a mention is never taken for a definition.
"""
import re
from dataclasses import dataclass, field

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|\S")
CLASS_HEAD = re.compile(
    r"(?<!\benum )\b(?:class|struct|union) (?:\[ \[ [^\]]* \] \] )?(\w+(?: :: \w+)*)"
    r"(?: < [^{;]* >)?(?: final)?(?: :(?!:)[^{;]*)?$")
NOT_FUNCTION_NAMES = {
    "alignas", "alignof", "decltype", "noexcept", "requires", "sizeof", "static_assert",
    "__attribute__", "__declspec", "__launch_bounds__", "operator", "void",  # void (*fn)(int);
}
ACCESS = {"public", "private", "protected"}


def strip_comments_and_literals(source):
    """source with comments, string and character literals and preprocessor lines blanked out.

    Newlines are kept so that the text keeps its lines; a literal becomes one space."""
    out, i, n, line_start = [], 0, len(source), True
    while i < n:
        c = source[i]
        if c == "\n":
            out.append(c)
            i, line_start = i + 1, True
            continue
        if line_start and c == "#":
            while i < n and source[i] != "\n":  # a directive, with its continuation lines
                if source[i] == "\\" and i + 1 < n and source[i + 1] == "\n":
                    out.append("\n")
                    i += 1
                i += 1
            continue
        if not c.isspace():
            line_start = False
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 1
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end) or " ")
            i = end
        elif c == '"' and i > 0 and source[i - 1] == "R":
            match = re.match(r'"([^(\s]*)\(', source[i:])
            delimiter = ")" + (match.group(1) if match else "") + '"'
            end = source.find(delimiter, i + 1)
            end = n if end < 0 else end + len(delimiter)
            out.append("\n" * source.count("\n", i, end) or " ")
            i = end
        elif c == '"' or (c == "'" and not _is_digit_separator(source, i)):
            i += 1
            while i < n and source[i] != c and source[i] != "\n":
                i += 2 if source[i] == "\\" else 1
            out.append(" ")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _is_digit_separator(source, i):
    """Whether the ' at i separates digits (1'000'000) rather than opening a character."""
    start = i
    while start > 0 and (source[start - 1].isalnum() or source[start - 1] in "_'"):
        start -= 1
    return start < i and source[start].isdigit()


@dataclass
class Entity:
    """One class or function the file defines or declares.

    scope: the enclosing namespaces and classes, outermost first; written: the name as the
    file writes it, qualifiers included (Mlp1D::forward out of line, forward inside Mlp1D);
    namespaces: how many leading parts of scope are namespaces (the rest are classes)."""
    scope: tuple
    written: tuple
    namespaces: int

    def full_name(self):
        """Every part of the name, namespaces included: tplab::tp1d::Mlp1D::forward."""
        return self.scope + self.written

    def least_name(self):
        """The shortest name that says which entity it is: the classes and the name, without
        the namespaces (Mlp1D::forward, OperatorF, bus_factor)."""
        return self.scope[self.namespaces:] + self.written

    def ends_with(self, parts):
        """Whether the name parts end the full name: (forward,) and (Mlp1D, forward) end
        tplab::tp1d::Mlp1D::forward."""
        full = self.full_name()
        return len(parts) <= len(full) and full[len(full) - len(parts):] == parts

    def is_named(self, parts):
        """Whether the name parts (Mlp1D, forward) name this entity: they end its full name and
        carry at least its classes."""
        return len(parts) >= len(self.least_name()) and self.ends_with(parts)


@dataclass
class Definitions:
    """The classes and functions one file defines, and those it only declares."""
    defined: list = field(default_factory=list)
    declared: list = field(default_factory=list)

    def defines(self, parts):
        return [e for e in self.defined if e.is_named(parts)]

    def declares(self, parts):
        return [e for e in self.declared if e.is_named(parts)]

    def members_named(self, parts):
        """The definitions whose name ends in parts but that need more qualifiers to be named:
        Mlp1D::forward for a citation of forward."""
        return [e for e in self.defined if e.ends_with(parts) and not e.is_named(parts)]


@dataclass
class _Scope:
    kind: str  # "namespace", "class" or "body" (a function body or any other block)
    names: tuple = ()


def read_definitions(source):
    """The Definitions of a C++ file's text."""
    tokens = TOKEN.findall(strip_comments_and_literals(source))
    found = Definitions()
    stack = [_Scope("namespace")]
    statement = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if stack[-1].kind == "body":
            if token == "{":
                stack.append(_Scope("body"))
            elif token == "}" and len(stack) > 1:
                stack.pop()
            i += 1
            continue
        if token == ";":
            _record_declaration(statement, stack, found)
            statement = []
        elif token == "{":
            if _opens_member_initializer(statement):
                i = _skip_braces(tokens, i)
                statement.append("{}")
                continue
            stack.append(_open_scope(statement, stack, found))
            statement = []
        elif token == "}":
            if len(stack) > 1:
                stack.pop()
            statement = []
        elif token == ":" and len(statement) == 1 and statement[0] in ACCESS:
            statement = []
        else:
            statement.append(token)
        i += 1
    return found


def _skip_braces(tokens, i):
    """The index after the } that closes the { at i."""
    depth = 0
    while i < len(tokens):
        depth += {"{": 1, "}": -1}.get(tokens[i], 0)
        i += 1
        if depth == 0:
            break
    return i


def _namespaces_in(stack):
    return sum(len(s.names) for s in stack if s.kind == "namespace")


def _scope_names(stack):
    return tuple(name for s in stack for name in s.names)


def _open_scope(statement, stack, found):
    """The scope the { after statement opens; records the class or function it defines."""
    text = " ".join(statement)
    if statement[:1] == ["namespace"] or statement[:2] == ["inline", "namespace"]:
        names = statement[statement.index("namespace") + 1:]
        return _Scope("namespace", tuple(t for t in names if t != "::"))
    if statement == ["extern"]:  # extern "C" {, its string blanked out
        return _Scope("namespace")
    head = CLASS_HEAD.search(text)
    if head:
        written = tuple(head.group(1).split(" :: "))
        found.defined.append(Entity(_scope_names(stack), written, _namespaces_in(stack)))
        return _Scope("class", written)
    name = _function_name(statement)
    if name:
        found.defined.append(Entity(_scope_names(stack), name, _namespaces_in(stack)))
    return _Scope("body")


def _record_declaration(statement, stack, found):
    """Records the class (class A;) or function (void f(int);) statement declares, if any."""
    head = CLASS_HEAD.search(" ".join(statement))
    name = tuple(head.group(1).split(" :: ")) if head else _function_name(statement)
    if name:
        found.declared.append(Entity(_scope_names(stack), name, _namespaces_in(stack)))


def _parameters_open(statement):
    """The index of the ( that opens a function's parameters in statement, or None: the first
    ( outside template brackets, not after an = (an initializer is no function)."""
    angle = 0
    for k, token in enumerate(statement):
        if token == "<":
            angle += 1
        elif token == ">":
            angle = max(0, angle - 1)
        elif angle == 0 and token == "=":
            return None
        elif angle == 0 and token == "(":
            return k
    return None


def _closing_paren(statement, k):
    depth = 0
    for j in range(k, len(statement)):
        depth += {"(": 1, ")": -1}.get(statement[j], 0)
        if depth == 0:
            return j
    return None


def _function_name(statement):
    """The qualified name, as parts, of the function statement declares, or None."""
    k = _parameters_open(statement)
    if k is None or _closing_paren(statement, k) is None:
        return None
    j = k - 1
    if j >= 0 and statement[j] == ">":  # f<T>(...): skip the template arguments
        depth = 0
        while j >= 0:
            depth += {">": 1, "<": -1}.get(statement[j], 0)
            j -= 1
            if depth == 0:
                break
    parts = []
    while j >= 0 and re.fullmatch(r"[A-Za-z_]\w*", statement[j]):
        parts.insert(0, ("~" if j > 0 and statement[j - 1] == "~" else "") + statement[j])
        j -= 2 if parts[0].startswith("~") else 1
        if j >= 0 and statement[j] == "::":
            j -= 1
        else:
            break
    if not parts or any(p in NOT_FUNCTION_NAMES for p in parts):
        return None
    return tuple(parts)


def _opens_member_initializer(statement):
    """Whether a { after statement is a constructor's member initializer, x_{1} in
    `A::A() : x_{1}, y_(2) {`, rather than the constructor's body."""
    k = _parameters_open(statement)
    end = None if k is None else _closing_paren(statement, k)
    if end is None or _function_name(statement) is None:
        return False
    after = statement[end + 1:]
    return ":" in after and bool(after) and (re.fullmatch(r"\w+", after[-1]) or after[-1] == ">")
