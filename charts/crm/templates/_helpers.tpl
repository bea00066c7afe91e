{{/*
What each component is: its resource name, the program it runs, its ports, whom it calls over gRPC
and which stores it uses. Values choose how much of each runs; this table is the topology of
ARCHITECTURE.md and the one place the Deployments, Services and NetworkPolicies read it from.
- metrics: the process serves GET /metrics on METRICS_PORT (its main.ts calls startProcessMetrics;
  tests/deploy/chart.test.ts keeps this flag in step with the sources). Without it the chart sets
  no METRICS_PORT, declares no metrics port and adds no scrape annotations for the component.
- uploads: the component streams uploads to import's `upload` port (only such pods may reach it).
- outbound: destinations outside the cluster the component talks to when configured (smtp, ai).
*/}}
{{- define "crm.topology" -}}
gateway:
  name: gateway
  entry: gateway/dist/main.js
  ports: { api: 8443 }   # HTTPS, or plain HTTP behind a TLS-terminating ingress
  calls: [auth, records, import, automation]
  uploads: true
  metrics: true
  stores: [redis]
auth:
  name: auth
  entry: services/auth/dist/main.js
  metrics: true
  ports: { grpc: 50051 }
  calls: []
  stores: [mongodb]
  database: crm_auth
records:
  name: records
  entry: services/records/dist/main.js
  metrics: true
  ports: { grpc: 50052 }
  calls: [auth]
  stores: [mongodb, rabbitmq]
  database: crm_records
import:
  name: import
  entry: services/import/dist/main.js
  metrics: true
  ports: { grpc: 50053, upload: 8081 }
  calls: [records]
  stores: [mongodb, rabbitmq]
  database: crm_import
importWorker:
  name: import-worker
  entry: services/import/dist/main.js
  metrics: true
  role: worker
  ports: { grpc: 50053 }   # gRPC health only (startImportWorker), for the probes
  calls: [records]
  stores: [mongodb, rabbitmq]
  database: crm_import
automation:
  name: automation
  entry: services/automation/dist/main.js
  metrics: true
  ports: { grpc: 50054 }
  calls: [records, auth]
  stores: [mongodb, rabbitmq]
  database: crm_automation
automationWorker:
  name: automation-worker
  entry: services/automation/dist/main.js
  metrics: true
  role: worker
  ports: { grpc: 50054 }   # gRPC health only (startAutomationWorker), for the probes
  calls: [records, auth]
  outbound: [smtp, ai]     # the worker sends the emails and asks the model for ai_generated ones
  stores: [mongodb, rabbitmq]
  database: crm_automation
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
