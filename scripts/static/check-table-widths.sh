#!/usr/bin/env bash
# Developer check (needs Debian's chromium; not part of make check): render
# every page of the built HTML docs in headless Chromium at a 1280 px wide
# window and list the tables that reach past the content column (clipped or
# scrolled sideways). Prints one line per page and fails if any table does.
# Usage: check-table-widths.sh [HTML_DIR] [WIDTH]   (default build/html 1280)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
html=$(realpath "${1:-$top/build/html}") width=${2:-1280}
command -v chromium >/dev/null || { echo "error: chromium not found (apt-get install chromium)" >&2; exit 1; }
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$html/." "$copy/"
probe="<script>window.addEventListener('load',function(){var c=document.querySelector('.wy-nav-content').getBoundingClientRect(),out=[];document.querySelectorAll('table').forEach(function(t,i){var r=t.getBoundingClientRect();if(r.right>c.right+1)out.push('table '+i+' ends at '+Math.round(r.right)+'px, the column at '+Math.round(c.right)+'px');});document.body.setAttribute('data-kit-overflow',out.join('; ')||'none');});</script>"
bad=0 pages=0
while IFS= read -r page; do
	sed -i "s#</body>#$probe</body>#" "$copy/$page"
	result=$(timeout 60 chromium --headless --no-sandbox --disable-gpu --window-size="$width",900 \
		--virtual-time-budget=3000 --dump-dom "file://$copy/$page" 2>/dev/null |
		grep -o 'data-kit-overflow="[^"]*"' | sed 's/^data-kit-overflow="//; s/"$//; s/&gt;/>/g')
	pages=$((pages + 1))
	if [ "$result" != none ]; then
		echo "$page: ${result:-no result (page did not load)}"
		bad=$((bad + 1))
	fi
done < <(cd "$copy" && find . -name '*.html' ! -name 'genindex.html' ! -name 'search.html' | sed 's|^\./||' | sort)
echo "$pages pages at ${width}px: $bad with a table past the content column"
[ "$bad" = 0 ]
