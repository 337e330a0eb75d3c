"""Makes docs/guide.md from docs/guide.tmpl.md: runs every `$ pyjit` command of its console
blocks from a copy of examples/ and writes the real output under it (a `%% ...` line after a
command abridges the output: `pick REGEX`, `section PREFIX`, `glob REGEX=>REPL`, `head N`,
joined by ` ;; `), copies the pictures the commands made to docs/images/. The test
crates/pyjit-cli/tests/guide.rs checks the result against fresh output."""
import subprocess, sys, pathlib, shlex, shutil, tempfile, re
import os
# Run from anywhere: python3 docs/gen_guide.py (after `cargo build -p pyjit-cli`; PYJIT=path overrides the binary).
root = pathlib.Path(__file__).resolve().parent.parent
tmpl = (root/'docs/guide.tmpl.md').read_text()
binp = os.environ.get('PYJIT', str(root / 'target/debug/pyjit'))
work = pathlib.Path(tempfile.mkdtemp())
shutil.copytree(root/'examples', work/'examples')
(work/'docs/images').mkdir(parents=True)

def pick(lines, rx):
    r = re.compile(rx); out=[]; skipped=False
    for l in lines:
        if r.search(l):
            if skipped: out.append('...')
            skipped=False; out.append(l)
        else: skipped=True
    if skipped: out.append('...')
    return out

def apply(lines, directive):
    for d in directive.split(' ;; '):
        d=d.strip()
        if d.startswith('pick '): lines = pick(lines, d[5:])
        elif d.startswith('section '):
            head=d[8:]
            i=[k for k,l in enumerate(lines) if l.startswith(head)][0]
            lines = (['...'] if i>0 else []) + lines[i:]
        elif d.startswith('glob '):
            a,b = d[5:].split('=>')
            lines = [re.sub(a,b,l) if l!='...' else l for l in lines]
        elif d.startswith('head '):
            n=int(d[5:]); lines = lines[:n] + (['...'] if len(lines)>n else [])
    # collapse consecutive ...
    out=[]
    for l in lines:
        if l=='...' and out and out[-1]=='...': continue
        out.append(l)
    return out

out = []
in_console = False
tl = tmpl.split('\n')
i=0
while i < len(tl):
    line=tl[i]; i+=1
    if line.startswith('INCLUDE '):
        out.append((root/'examples'/line[8:]).read_text().rstrip('\n')); continue
    if line == '```console':
        in_console = True; out.append(line); continue
    if in_console and line == '```':
        in_console = False; out.append(line); continue
    if in_console and line.startswith('$ pyjit'):
        cmd = line[2:]
        quiet = cmd.endswith(' 2>/dev/null')
        c = cmd[:-len(' 2>/dev/null')] if quiet else cmd
        w = shlex.split(c)
        p = subprocess.run([binp]+w[1:], cwd=work/'examples', capture_output=True, text=True)
        text = p.stdout + ('' if quiet else p.stderr)
        lines = text.rstrip('\n').split('\n') if text.strip() else []
        if i < len(tl) and tl[i].startswith('%% '):
            lines = apply(lines, tl[i][3:]); i+=1
        out.append(line); out.extend(lines)
        continue
    out.append(line)
text='\n'.join(out)
text = text.replace('COUNT_CRATES', '150')
(root/'docs/guide.md').write_text(text)
for f in (work/'docs/images').iterdir():
    shutil.copy(f, root/'docs/images'/f.name)
shutil.rmtree(work)
