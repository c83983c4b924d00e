#!/usr/bin/env python3
"""Print the external commands a set of bash scripts call, one per line
as FILE:LINE:COMMAND, so that tests/cli/t000-deps.sh can check each one
against what `make deps` installs. A shell-word tokenizer (shlex) finds the
words in command position; heredoc bodies (inline Python, SQL) are skipped,
and the project's own test helpers are followed to the command they wrap
(check DESC CMD..., expect_exit STATUS DESC CMD...)."""
import os
import re
import shlex
import sys

KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
            "for", "in", "case", "esac", "function", "select", "time", "!", "{",
            "}", "[[", "]]", "coproc"}
BUILTINS = set("""alias bg bind break builtin caller cd command compgen complete
continue declare dirs disown echo enable eval exec exit export false fc fg getopts
hash help history jobs kill let local logout mapfile popd printf pushd pwd read
readarray readonly return set shift shopt source suspend test times trap true type
typeset ulimit umask unalias unset wait . : [""".split())
# The helpers of tests/cli/lib.sh that run a command: how many words to skip.
WRAPPERS = {"check": 1, "expect_exit": 2, "run_one": 1}
SEPARATORS = {"|", "||", "&&", ";", ";;", "&", "(", ")", "|&", "\n"}


def logical_lines(text):
    """Yields (line number, text): heredoc bodies skipped, a line whose
    quotes do not close joined with the next ones, arithmetic removed."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 1
        i += 1
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m:
            end = m.group(1)
            while i < len(lines) and lines[i].strip() != end:
                i += 1
            i += 1
        while not balanced(line) and i < len(lines):
            line += "\n" + lines[i]
            i += 1
        yield number, re.sub(r"\$\(\([^()]*(\([^()]*\)[^()]*)*\)\)", "0", line)


def balanced(line):
    try:
        list(shlex.shlex(line, posix=True, punctuation_chars=True))
        return True
    except ValueError:
        return False


def defined_functions(text):
    return set(re.findall(r"^\s*(?:function\s+)?([\w-]+)\s*\(\)", text, re.M))


def commands_in(path):
    text = open(path, encoding="utf-8").read()
    functions = defined_functions(text)
    for sourced in re.findall(r"^\s*\.\s+\"\$\(dirname \"\$0\"\)/([\w.-]+)\"", text, re.M):
        with open(os.path.join(os.path.dirname(path), sourced), encoding="utf-8") as f:
            functions |= defined_functions(f.read())
    for number, line in logical_lines(text):
        # Command substitutions and process groups start new commands.
        line = line.replace("$(", " ( ").replace("`", " ( ")
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            words = list(lexer)
        except ValueError:
            continue  # an unbalanced quote continues on the next line
        at_start, skip = True, 0
        redirect = array = False
        for k, w in enumerate(words):
            nxt = words[k + 1] if k + 1 < len(words) else ""
            if array:
                array = w != ")"
                continue
            if w.endswith("=") and nxt == "(":
                array = True
                continue
            if at_start and nxt == ")" and w != "(":
                continue  # a case pattern
            if redirect:
                redirect = False
                continue
            if w in {"for", "case", "select"} and at_start:
                at_start = False  # the loop's words are no commands
                continue
            if w.isdigit() and nxt in {"<", ">", ">>", "<&", ">&"}:
                continue
            if w == "(" and array:
                continue
            if w in SEPARATORS:
                at_start, skip = True, 0
                continue
            if w in {"<", ">", ">>", "<<", "<<<", ">&", "<&"} or re.fullmatch(r"\d*[<>]+&?", w):
                redirect = True
                continue
            if not at_start:
                continue
            if skip:
                skip -= 1
                continue
            if w in KEYWORDS or re.fullmatch(r"\w+=.*", w):
                continue
            at_start = False
            if w in WRAPPERS:
                at_start, skip = True, WRAPPERS[w]
                continue
            if w in BUILTINS or w in functions or w.startswith(("$", "-", "/", ".", "~", "{")):
                continue
            if not re.fullmatch(r"[A-Za-z0-9_.+-]+", w):
                continue
            yield number, w


def main():
    for path in sys.argv[1:]:
        for number, command in commands_in(path):
            print(f"{path}:{number}:{command}")


if __name__ == "__main__":
    main()
