{{/* What each component is: charts/crm/topology.yaml says (its header explains the fields). */}}
{{- define "crm.topology" -}}
{{ .Files.Get "topology.yaml" }}
{{- end }}

{{/* The components in a fixed order, so rendered manifests are stable. */}}
{{- define "crm.componentKeys" -}}
gateway auth records import importWorker automation automationWorker
{{- end }}

{{- define "crm.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-crm, or just <release> when the release name already contains "crm". */}}
{{- define "crm.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* A component's resource name; args: (list $ "import-worker"). */}}
{{- define "crm.componentFullname" -}}
{{- $root := index . 0 }}
{{- printf "%s-%s" (include "crm.fullname" $root) (index . 1) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "crm.chartLabel" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object; args: (list $ componentName). */}}
{{- define "crm.labels" -}}
{{- $root := index . 0 }}
helm.sh/chart: {{ include "crm.chartLabel" $root }}
{{ include "crm.selectorLabels" . }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/part-of: crm
{{- end }}

{{/* Selector labels; args: (list $ componentName). */}}
{{- define "crm.selectorLabels" -}}
{{- $root := index . 0 }}
app.kubernetes.io/name: {{ include "crm.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* Full name of a Bitnami dependency, as its common.names.fullname computes it; args: (list $ "mongodb"). */}}
{{- define "crm.dependencyFullname" -}}
{{- $root := index . 0 }}
{{- $chart := index . 1 }}
{{- $values := index $root.Values $chart }}
{{- if $values.fullnameOverride }}
{{- $values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains $chart $root.Release.Name }}
{{- $root.Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" $root.Release.Name $chart | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* image reference; args: (list $ $component). A tag may carry a digest (tag@sha256:…), as skaffold sets it. */}}
{{- define "crm.image" -}}
{{- $root := index . 0 }}
{{- $image := (index . 1).image }}
{{- printf "%s:%s" $image.repository (default $root.Chart.AppVersion $image.tag) }}
{{- end }}

{{/* Name of the Secret holding values the chart generates (operator token, JWT key, upload secret) or is given as values (SMTP URL, AI API key). */}}
{{- define "crm.generatedSecretName" -}}
{{- printf "%s-generated" (include "crm.fullname" .) }}
{{- end }}

{{/*
A Secret volume with one internal identity's certificate, key and the CA's certificate, as ca.crt,
tls.crt and tls.key (what INTERNAL_TLS_DIR holds); args: (list $ identity). See internal-tls.yaml.
*/}}
{{- define "crm.internalTlsVolume" -}}
{{- $root := index . 0 }}
{{- $identity := index . 1 }}
secret:
  {{- if $root.Values.internalTls.certManager.enabled }}
  secretName: {{ printf "%s-internal-tls-%s" (include "crm.fullname" $root) $identity }}
  items: [{ key: ca.crt, path: ca.crt }, { key: tls.crt, path: tls.crt }, { key: tls.key, path: tls.key }]
  {{- else }}
  secretName: {{ printf "%s-internal-tls" (include "crm.fullname" $root) }}
  items: [{ key: ca.crt, path: ca.crt }, { key: {{ $identity }}.crt, path: tls.crt }, { key: {{ $identity }}.key, path: tls.key }]
  {{- end }}
  defaultMode: 0440
{{- end }}

{{/* Whether the gateway speaks TLS itself (probes use HTTPS then). */}}
{{- define "crm.gatewayServesTls" -}}
{{- if not .Values.tls.terminatedAtIngress }}true{{ end }}
{{- end }}

{{/*
Environment of one store's URL for a component; args: (list $ "mongodb"|"rabbitmq"|"redis").
In-cluster stores: the password comes from the dependency's own Secret and is put into the URL by
Kubernetes' $(VAR) expansion, so no password is written into this chart. External stores: the
URL comes whole from externalUrls.existingSecret.
*/}}
{{- define "crm.storeEnv" -}}
{{- $root := index . 0 }}
{{- $store := index . 1 }}
{{- $ns := $root.Release.Namespace }}
{{- if eq $store "mongodb" }}
{{- if $root.Values.mongodb.enabled }}
{{- $full := include "crm.dependencyFullname" (list $root "mongodb") }}
{{- $hosts := list }}
{{- range $i := until (int $root.Values.mongodb.replicaCount) }}
{{- $hosts = append $hosts (printf "%s-%d.%s-headless.%s.svc:27017" $full $i $full $ns) }}
{{- end }}
- name: MONGODB_ROOT_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ $full }}, key: mongodb-root-password }
- name: MONGO_URL
  value: {{ printf "mongodb://root:$(MONGODB_ROOT_PASSWORD)@%s/?replicaSet=%s&authSource=admin" (join "," $hosts) $root.Values.mongodb.replicaSetName | quote }}
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "MONGO_URL" $root.Values.externalUrls.keys.mongoUrl "mongodb") }}
{{- end }}
{{- else if eq $store "rabbitmq" }}
{{- if $root.Values.rabbitmq.enabled }}
{{- $full := include "crm.dependencyFullname" (list $root "rabbitmq") }}
- name: RABBITMQ_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ $full }}, key: rabbitmq-password }
- name: AMQP_URL
  value: {{ printf "amqp://%s:$(RABBITMQ_PASSWORD)@%s.%s.svc:5672" $root.Values.rabbitmq.auth.username $full $ns | quote }}
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "AMQP_URL" $root.Values.externalUrls.keys.amqpUrl "rabbitmq") }}
{{- end }}
{{- else if eq $store "redis" }}
{{- if $root.Values.redis.enabled }}
{{- $full := include "crm.dependencyFullname" (list $root "redis") }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ $full }}, key: redis-password }
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s-master.%s.svc:6379" $full $ns | quote }}
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "REDIS_URL" $root.Values.externalUrls.keys.redisUrl "redis") }}
{{- end }}
{{- end }}
{{- end }}

{{/* args: (list $ envName secretKey dependencyName) */}}
{{- define "crm.externalUrlEnv" -}}
{{- $root := index . 0 }}
{{- if not $root.Values.externalUrls.existingSecret }}
{{- fail (printf "%s has no source: set %s.enabled=true, or externalUrls.existingSecret (a Secret with key %q)" (index . 1) (index . 3) (index . 2)) }}
{{- end }}
- name: {{ index . 1 }}
  valueFrom:
    secretKeyRef: { name: {{ $root.Values.externalUrls.existingSecret }}, key: {{ index . 2 }} }
{{- end }}

{{/* The pod labels a Bitnami dependency with networkPolicy.allowExternal=false admits; args: (list $ $spec). */}}
{{- define "crm.storeClientLabels" -}}
{{- $root := index . 0 }}
{{- range $store := (index . 1).stores }}
{{- if (index $root.Values $store).enabled }}
{{ include "crm.dependencyFullname" (list $root $store) }}-client: "true"
{{- end }}
{{- end }}
{{- end }}

{{/* The port each store listens on. */}}
{{- define "crm.storePort" -}}
{{- get (dict "mongodb" "27017" "rabbitmq" "5672" "redis" "6379") . }}
{{- end }}
