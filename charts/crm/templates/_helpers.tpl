{{/* What each component is: charts/crm/topology.yaml says (its header explains the fields). */}}
{{- define "crm.topology" -}}
{{ .Files.Get "topology.yaml" }}
{{- end }}

{{/* The service databases of the topology, each once, sorted: one MongoDB user each (store-mongodb.yaml). */}}
{{- define "crm.mongoDatabases" -}}
{{- $databases := list }}
{{- range $spec := include "crm.topology" . | fromYaml }}
{{- with $spec.database }}{{ $databases = append $databases . }}{{ end }}
{{- end }}
{{- $databases | uniq | sortAlpha | join " " }}
{{- end }}

{{/* The key of a service database's password in <release>-stores; args: the database name. */}}
{{- define "crm.mongoUserPasswordKey" -}}
{{- printf "mongodb-%s-password" (. | replace "_" "-") }}
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
Stores the chart runs: the password comes from <release>-stores and is put into the URL by
Kubernetes' $(VAR) expansion (alphanumeric, so no encoding is needed). Operator-run stores: the URL
comes whole from the Secret the operator writes. External stores: from externalUrls.existingSecret.
*/}}
{{- define "crm.storeEnv" -}}
{{- $root := index . 0 }}
{{- $store := index . 1 }}
{{- $database := index . 2 }}
{{- $ns := $root.Release.Namespace }}
{{- $name := include "crm.storeFullname" (list $root $store) }}
{{- $values := index $root.Values $store }}
{{- if eq $store "mongodb" }}
{{- if $values.enabled }}
# Least privilege: the service's own user, with rights on its own database only (store-mongodb.yaml makes it).
- name: MONGODB_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ include "crm.storesSecretName" $root }}, key: {{ include "crm.mongoUserPasswordKey" $database }} }
- name: MONGO_URL
  value: {{ printf "mongodb://%s:$(MONGODB_PASSWORD)@%s-0.%s.%s.svc:27017/%s?replicaSet=%s&authSource=%s" $database $name $name $ns $database $values.replicaSetName $database | quote }}
{{- else if $values.community.enabled }}
# The operator's connection Secret <resource>-<database>-<user> holds the whole SRV-less URL.
- name: MONGO_URL
  valueFrom:
    secretKeyRef: { name: {{ printf "%s-admin-%s" (include "crm.mongodbCommunityName" $root) $values.community.username }}, key: connectionString.standard }
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "MONGO_URL" $root.Values.externalUrls.keys.mongoUrl "mongodb") }}
{{- end }}
{{- else if eq $store "rabbitmq" }}
{{- if $values.enabled }}
- name: RABBITMQ_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ include "crm.storesSecretName" $root }}, key: rabbitmq-password }
- name: AMQP_URL
  value: {{ printf "amqp://%s:$(RABBITMQ_PASSWORD)@%s.%s.svc:5672" $values.auth.username $name $ns | quote }}
{{- else if $values.cluster.enabled }}
# The Cluster Operator's default-user Secret <cluster>-default-user holds the URL (key connection_string).
- name: AMQP_URL
  valueFrom:
    secretKeyRef: { name: {{ printf "%s-default-user" (include "crm.rabbitmqClusterName" $root) }}, key: connection_string }
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "AMQP_URL" $root.Values.externalUrls.keys.amqpUrl "rabbitmq") }}
{{- end }}
{{- else if eq $store "redis" }}
{{- if $values.enabled }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ include "crm.storesSecretName" $root }}, key: redis-password }
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s.%s.svc:6379" $name $ns | quote }}
{{- else }}
{{- include "crm.externalUrlEnv" (list $root "REDIS_URL" $root.Values.externalUrls.keys.redisUrl "redis") }}
{{- end }}
{{- end }}
{{- end }}

{{/* The MongoDBCommunity and RabbitmqCluster resources' names (operators.yaml). */}}
{{- define "crm.mongodbCommunityName" -}}
{{- include "crm.componentFullname" (list . "mongodb") }}
{{- end }}
{{- define "crm.rabbitmqClusterName" -}}
{{- include "crm.componentFullname" (list . "rabbitmq") }}
{{- end }}

{{/* args: (list $ envName secretKey dependencyName) */}}
{{- define "crm.externalUrlEnv" -}}
{{- $root := index . 0 }}
{{- if not $root.Values.externalUrls.existingSecret }}
{{- fail (printf "%s has no source: set %s.enabled=true (the chart runs it)%s, or externalUrls.existingSecret (a Secret with key %q)" (index . 1) (index . 3) (get (dict "mongodb" ", mongodb.community.enabled=true (the MongoDB operator runs it)" "rabbitmq" ", rabbitmq.cluster.enabled=true (the RabbitMQ Cluster Operator runs it)" "redis" "") (index . 3)) (index . 2)) }}
{{- end }}
- name: {{ index . 1 }}
  valueFrom:
    secretKeyRef: { name: {{ $root.Values.externalUrls.existingSecret }}, key: {{ index . 2 }} }
{{- end }}

{{/* The port each store listens on. */}}
{{- define "crm.storePort" -}}
{{- get (dict "mongodb" "27017" "rabbitmq" "5672" "redis" "6379") . }}
{{- end }}

{{/* The Secret with the passwords of the stores the chart runs (stores-secret.yaml). */}}
{{- define "crm.storesSecretName" -}}
{{- printf "%s-stores" (include "crm.fullname" .) }}
{{- end }}

{{/* One key of that Secret, base64: the given value, else the existing one, else random; args: (list $existingData key given length). */}}
{{- define "crm.storeSecretValue" -}}
{{- $existing := index . 0 }}
{{- $given := index . 2 }}
{{- if $given }}{{ $given | b64enc | quote }}
{{- else }}{{ get $existing (index . 1) | default (randAlphaNum (int (index . 3)) | b64enc) | quote }}
{{- end }}
{{- end }}

{{/* Name of a store the chart runs (its StatefulSet, Service and pods' prefix); args: (list $ "mongodb"). */}}
{{- define "crm.storeFullname" -}}
{{- include "crm.componentFullname" . }}
{{- end }}

{{/* A store's pod security: the official images run as their own user 999. */}}
{{- define "crm.storePodSecurity" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 999
  runAsGroup: 999
  fsGroup: 999
  seccompProfile: { type: RuntimeDefault }
{{- end }}

{{/* A store's scheduling, pull secrets and priority, shared with the components; args: $. */}}
{{- define "crm.podPlacement" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.scheduling.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.scheduling.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.scheduling.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A store's data volume: a claim per pod when persistence is on, else an emptyDir; args: (list $ $store). */}}
{{- define "crm.storeVolumeClaims" -}}
{{- $store := index . 1 }}
{{- if $store.persistence.enabled }}
volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      {{- with $store.persistence.storageClass }}
      storageClassName: {{ . }}
      {{- end }}
      resources:
        requests:
          storage: {{ $store.persistence.size }}
{{- end }}
{{- end }}

{{- /*
The `to` of an egress rule: an ipBlock per CIDR given, or with none every public address (IPv4 and
IPv6 minus the private, shared, link-local and loopback ranges).
*/}}
{{- define "crm.egressDestinations" -}}
{{- if . }}
{{- range . }}
- ipBlock: { cidr: {{ . | quote }} }
{{- end }}
{{- else }}
- ipBlock:
    cidr: 0.0.0.0/0
    except: [10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, 169.254.0.0/16, 127.0.0.0/8]
- ipBlock:
    cidr: ::/0
    except: ['fc00::/7', 'fe80::/10', '::1/128']
{{- end }}
{{- end }}

{{- /*
Where the OpenTelemetry collector may be reached: telemetry.egressTo (NetworkPolicy peers) when set;
else read from telemetry.otlpEndpoint's host: an IPv4 address is that address alone; a cluster name
(`collector`, `collector.<namespace>`, `collector.<namespace>.svc…`) is the pods of that namespace;
any other name is public addresses only, like SMTP and AI (a NetworkPolicy cannot name a host).
*/}}
{{- define "crm.otlpDestinations" -}}
{{- $host := first (splitList ":" (urlParse .Values.telemetry.otlpEndpoint).host) }}
{{- $labels := splitList "." $host }}
{{- if .Values.telemetry.egressTo }}
{{- toYaml .Values.telemetry.egressTo }}
{{- else if regexMatch "^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$" $host }}
- ipBlock: { cidr: {{ printf "%s/32" $host | quote }} }
{{- else if eq (len $labels) 1 }}
- podSelector: {}
{{- else if or (eq (len $labels) 2) (and (gt (len $labels) 2) (eq (index $labels 2) "svc")) }}
- namespaceSelector:
    matchLabels: { kubernetes.io/metadata.name: {{ index $labels 1 | quote }} }
{{- else }}
{{- include "crm.egressDestinations" list }}
{{- end }}
{{- end }}

{{- /*
When the chart's generated identity certificates stop being valid (Unix seconds): the kept
<release>-internal-tls Secret's `crm/not-after` while more than internalTls.renewBeforeDays remain,
else a new moment (the start of today, UTC, plus validityDays). A new moment makes internal-tls.yaml
sign every identity again from the kept CA and rolls every pod (the pod template carries it), so a
`helm upgrade` inside the renewal window renews them all; old and new certificates share the CA.
*/}}
{{- define "crm.internalTlsNotAfter" -}}
{{- $tls := .Values.internalTls }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-internal-tls" (include "crm.fullname" .)) }}
{{- $now := now | unixEpoch | int64 }}
{{- $kept := int64 0 }}
{{- if $existing }}{{ $kept = index ($existing.metadata.annotations | default dict) "crm/not-after" | default "0" | int64 }}{{ end }}
{{- if gt $kept (add $now (mul (int64 $tls.renewBeforeDays) 86400)) }}{{ $kept }}
{{- else }}{{ add (mul (div $now 86400) 86400) (mul (int64 $tls.validityDays) 86400) }}{{ end }}
{{- end }}
